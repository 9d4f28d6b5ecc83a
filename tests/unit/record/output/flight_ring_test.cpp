#include "record/output/flight_ring.h"

#include <catch2/catch.hpp>

using namespace usdt::record;
using usdt::format::ProcessEvent;
using usdt::format::ProcessEventKind;

namespace {

// A chunk of `events` events from min to max, `bytes` long, with process
// records (already in time order).
std::shared_ptr<const RingChunk> chunk(uint64_t min, uint64_t max, uint32_t events, size_t bytes,
                                       std::vector<ProcessEvent> processes = {}) {
  auto c = std::make_shared<RingChunk>();
  c->block.assign(bytes, 'x');
  c->header.min_time_ns = min;
  c->header.max_time_ns = max;
  c->header.events = events;
  c->header.process_events = static_cast<uint32_t>(processes.size());
  c->processes = std::move(processes);
  return c;
}

ProcessEvent comm(uint64_t time, uint32_t tid, const std::string& name) {
  ProcessEvent p;
  p.time_ns = time;
  p.kind = ProcessEventKind::comm;
  p.pid = 1;
  p.tid = tid;
  p.comm = name;
  return p;
}

}  // namespace

TEST_CASE("the ring keeps the newest chunks within its size", "[flight_ring]") {
  FlightRing ring(300, 0);
  ring.push(chunk(100, 200, 10, 100));
  ring.push(chunk(150, 300, 20, 100));
  ring.push(chunk(300, 400, 30, 100));
  CHECK(ring.bytes() == 300);
  CHECK(ring.events() == 60);
  CHECK(ring.horizon() == 0);
  ring.push(chunk(400, 500, 40, 100));
  CHECK(ring.bytes() == 300);
  CHECK(ring.events() == 90);
  CHECK(ring.overwritten_full() == 10);
  // The horizon: the latest time pushed out; a window after it is whole.
  CHECK(ring.horizon() == 200);
  CHECK(ring.oldest_ns() == 150);
  // A chunk larger than the ring stays alone.
  ring.push(chunk(500, 600, 5, 1000));
  CHECK(ring.bytes() == 1000);
  CHECK(ring.events() == 5);
  CHECK(ring.overwritten_full() == 100);
  CHECK(ring.horizon() == 500);
}

TEST_CASE("a duration pushes out what ended before it", "[flight_ring]") {
  FlightRing ring(1 << 20, 1000);
  ring.push(chunk(0, 100, 1, 10));
  ring.push(chunk(900, 1500, 2, 10));
  ring.push(chunk(1500, 2000, 3, 10));
  ring.expire(2000);  // keeps what ends at or after 1000
  CHECK(ring.events() == 5);
  CHECK(ring.overwritten_old() == 1);
  CHECK(ring.overwritten_full() == 0);
  ring.expire(2600);
  CHECK(ring.events() == 3);
  CHECK(ring.overwritten_old() == 3);
}

TEST_CASE("what a snapshot took counts apart when it is pushed out", "[flight_ring]") {
  FlightRing ring(200, 0);
  ring.push(chunk(100, 200, 10, 100));
  ring.push(chunk(200, 300, 20, 100));
  auto taken = ring.take(200, 400);
  REQUIRE(taken.size() == 2);  // the first one cut, the second one whole
  CHECK(taken[1]->header.min_time_ns == 200);
  CHECK(ring.take(0, 50).empty());
  ring.push(chunk(300, 400, 30, 100));  // pushes out the first one, saved in part
  ring.push(chunk(400, 500, 40, 100));  // and the second one, saved whole
  ring.push(chunk(500, 600, 50, 100));  // and the third one, never saved
  CHECK(ring.released_partly_saved() == 10);
  CHECK(ring.released_saved() == 20);
  CHECK(ring.overwritten_full() == 30);
  // The snapshot still holds its chunks.
  CHECK(taken[1]->header.events == 20);
}

TEST_CASE("names of the chunks pushed out are carried, exited threads forgotten", "[flight_ring]") {
  FlightRing ring(100, 0);
  ProcessEvent exit = comm(150, 3, "");
  exit.kind = ProcessEventKind::exit;
  ring.push(chunk(100, 200, 1, 100, {comm(100, 2, "worker"), comm(110, 3, "gone"), exit}));
  ring.push(chunk(200, 300, 1, 100, {comm(250, 2, "renamed")}));
  // The first chunk was pushed out: its records made the names.
  CHECK(ring.base_names().size() == 1);
  REQUIRE(ring.held_processes().size() == 1);
  CHECK(ring.held_processes()[0].comm == "renamed");
  auto names = ring.base_names().carried(199);
  REQUIRE(names.size() == 1);  // thread 3 exited at 150, before the horizon 200
  CHECK(names[0].tid == 2);
  CHECK(names[0].comm == "worker");
  CHECK(names[0].time_ns == 199);
}
