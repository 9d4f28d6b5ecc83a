// Each CPU's events reach the writer in time order (formats/FORMAT.md,
// writer rules), also when the pid filter holds a sample of a process not
// known yet for a drain pass: the samples of its buffer after it wait with
// it, and the waiting ones are settled before the next pass reads any
// sample. A reader of a damaged trace relies on it (formats/completeness.h).
#include <catch2/catch.hpp>
#include <cstring>
#include <ctime>
#include <vector>

#include "record/kernel/ring_buffer.h"
#include "record/kernel/sample_decoder.h"
#include "record/session/batch_queue.h"
#include "record/session/drainer.h"
#include "tests/unit/support/fake_perf_mmap.h"

using namespace usdt;
using namespace usdt::record;

namespace {

constexpr uint32_t kTraced = 0x7ffffff0, kChild = 0x7ffffff1, kStranger = 0x7ffffff2;

uint64_t monotonic_now() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

uint64_t pair(uint32_t first, uint32_t second) { return uint64_t{second} << 32 | first; }

std::vector<uint8_t> record(uint32_t type, const std::vector<uint64_t>& words) {
  std::vector<uint8_t> bytes(sizeof(perf_event_header) + 8 * words.size());
  perf_event_header h{type, 0, static_cast<uint16_t>(bytes.size())};
  std::memcpy(bytes.data(), &h, sizeof h);
  std::memcpy(bytes.data() + sizeof h, words.data(), 8 * words.size());
  return bytes;
}

// A sample of the one registers-only site (identifier 100, "8@%rdi"):
// identifier, pid, tid, time, cpu, res, the abi, then rdi.
std::vector<uint8_t> sample(uint32_t pid, uint64_t time, uint64_t rdi) {
  return record(PERF_RECORD_SAMPLE,
                {100, pair(pid, pid), time, pair(0, 0), PERF_SAMPLE_REGS_ABI_64, rdi});
}

// A fork (pid, ppid, tid, ptid, time), then the sample_id trailer (pid,
// tid, time, cpu, res, and the identifier: the decoder's events carry one).
std::vector<uint8_t> fork_record(uint64_t time, uint32_t pid, uint32_t ppid) {
  return record(PERF_RECORD_FORK,
                {pair(pid, ppid), pair(pid, ppid), time, pair(pid, pid), time, pair(0, 0), 100});
}

SampleDecoder decoder_of_one_site() {
  SiteDecoding d;
  d.site_id = 0;
  d.args = parse_arg_specs("8@%rdi", Arch::x86_64);
  for (const ArgSpec& a : d.args) d.sources.push_back(arg_source(a, Arch::x86_64));
  d.regs_mask = uint64_t{1} << x86_reg::di;
  std::vector<SiteDecoding> sites{d};
  SampleDecoder decoder(std::move(sites), true);
  decoder.add_event(100, 0);
  return decoder;
}

struct Rings {
  FakePerfMmap samples, side_band;
  std::vector<RingBuffer> rings;
  Rings() {
    for (FakePerfMmap* m : {&samples, &side_band}) {
      auto ring = RingBuffer::map(m->fd, 1);
      REQUIRE(ring.ok());
      rings.push_back(std::move(*ring));
    }
  }
};

// The rdi values of the queued events, in the order the writer gets them.
std::vector<uint64_t> queued(BatchQueue& queue) {
  std::vector<uint64_t> out;
  EventBatch batch;
  while (queue.pop_for(batch, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch) {
    EventBatch::Reader reader(batch);
    format::Event e;
    while (reader.next(e)) out.push_back(e.args[0]);
  }
  return out;
}

}  // namespace

TEST_CASE("a sample waiting for its process keeps its CPU's later samples behind it",
          "[drainer][order]") {
  const uint64_t t = monotonic_now() - 1000000;
  Rings r;
  SampleDecoder decoder = decoder_of_one_site();
  BatchQueue queue(64);
  Drainer drainer(decoder, queue, 1);
  drainer.set_side_band_from(1);
  drainer.set_pid_filter({static_cast<pid_t>(kTraced)});
  // The child's first hit is read before its fork record: it waits, and the
  // traced process's later hit on the same CPU waits behind it.
  r.samples.write(sample(kTraced, t + 10, 1));
  r.samples.write(sample(kChild, t + 30, 2));
  r.samples.write(sample(kTraced, t + 40, 3));
  drainer.drain(r.rings);
  r.side_band.write(fork_record(t + 20, kChild, kTraced));
  r.samples.write(sample(kTraced, t + 50, 4));
  drainer.drain_to_end(r.rings);
  CHECK(drainer.traced(kChild));
  CHECK(drainer.foreign() == 0);
  CHECK(queued(queue) == std::vector<uint64_t>{1, 2, 3, 4});
}

TEST_CASE("a sample of a process never traced is dropped; the ones behind it are kept, in order",
          "[drainer][order]") {
  const uint64_t t = monotonic_now() - 1000000;
  Rings r;
  SampleDecoder decoder = decoder_of_one_site();
  BatchQueue queue(64);
  Drainer drainer(decoder, queue, 1);
  drainer.set_side_band_from(1);
  drainer.set_pid_filter({static_cast<pid_t>(kTraced)});
  r.samples.write(sample(kTraced, t + 10, 1));
  r.samples.write(sample(kStranger, t + 20, 2));
  r.samples.write(sample(kTraced, t + 30, 3));
  drainer.drain(r.rings);
  r.samples.write(sample(kTraced, t + 40, 4));
  drainer.drain_to_end(r.rings);
  CHECK(drainer.foreign() == 1);
  CHECK(drainer.events() == 3);
  CHECK(queued(queue) == std::vector<uint64_t>{1, 3, 4});
}
