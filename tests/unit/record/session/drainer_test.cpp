// Which records a drain pass takes: everything up to the moment the pass
// began, in every buffer, when call stacks need samples and mapping records
// in time order; the samples' buffers to their heads otherwise.
#include "record/session/drainer.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <ctime>
#include <vector>

#include "tests/unit/support/fake_perf_mmap.h"
#include "record/session/batch_queue.h"
#include "record/kernel/ring_buffer.h"
#include "record/kernel/sample_decoder.h"
#include "record/stacks/stack_collector.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// No process has this pid, so the collector seeds nothing from /proc.
constexpr uint32_t kPid = 0x7ffffff0;

uint64_t monotonic_now() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

// Two u32 fields in one u64 word, as they lie in a record (little-endian).
uint64_t pair(uint32_t first, uint32_t second) { return uint64_t{second} << 32 | first; }

// A record of the given type: its header, then the words.
std::vector<uint8_t> record(uint32_t type, const std::vector<uint64_t>& words) {
  std::vector<uint8_t> bytes(sizeof(perf_event_header) + 8 * words.size());
  perf_event_header h{type, 0, static_cast<uint16_t>(bytes.size())};
  std::memcpy(bytes.data(), &h, sizeof h);
  std::memcpy(bytes.data() + sizeof h, words.data(), 8 * words.size());
  return bytes;
}

// A -g fp sample of the only site (no identifier): pid, tid, time, cpu,
// res, then a one-frame user callchain.
std::vector<uint8_t> sample(uint64_t time, uint32_t pid = kPid) {
  return record(PERF_RECORD_SAMPLE,
                {pair(pid, pid), time, pair(0, 0), 2, PERF_CONTEXT_USER, 0x401000});
}

// A process's exit or fork (pid, ppid, tid, ptid, time), then the sample_id
// trailer (pid, tid, time, cpu, res).
std::vector<uint8_t> task_record(uint32_t type, uint64_t time, uint32_t pid, uint32_t ppid) {
  return record(type, {pair(pid, ppid), pair(pid, ppid), time, pair(pid, pid), time, pair(0, 0)});
}

std::vector<uint8_t> exit_record(uint64_t time) {
  return task_record(PERF_RECORD_EXIT, time, kPid, 1);
}

SampleDecoder fp_decoder() {
  SiteDecoding site;
  site.callchain = true;
  std::vector<SiteDecoding> sites;
  sites.push_back(site);
  return SampleDecoder(std::move(sites), false);
}

struct Buffers {
  FakePerfMmap samples;
  FakePerfMmap side_band;
  std::vector<RingBuffer> rings;
  Buffers() {
    auto a = RingBuffer::map(samples.fd, 1);
    auto b = RingBuffer::map(side_band.fd, 1);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    rings.push_back(std::move(*a));
    rings.push_back(std::move(*b));
  }
};

}  // namespace

TEST_CASE("with call stacks a pass takes no record written after it began", "[drainer]") {
  // A sample before the pass, then one written (with the process's exit)
  // while the pass takes the buffers: the exit must not apply before the
  // second sample is unwound, so both wait for the next pass.
  const uint64_t now = monotonic_now();
  const uint64_t later = now + 3600ull * 1000000000u;
  Buffers b;
  const std::vector<uint8_t> early = sample(now - 1000);
  b.samples.write(early);
  b.samples.write(sample(later));
  b.side_band.write(exit_record(later + 1));

  SampleDecoder decoder = fp_decoder();
  BatchQueue queue(64);
  CallGraph graph;
  graph.mode = CallGraphMode::fp;
  auto collector = StackCollector::create(graph);
  REQUIRE(collector.ok());
  Drainer drainer(decoder, queue, 1);
  drainer.set_side_band_from(1);
  drainer.set_stack_collector(collector->get());

  drainer.drain(b.rings);
  CHECK(drainer.events() == 1);
  CHECK(b.samples.meta()->data_tail == early.size());
  CHECK(b.side_band.meta()->data_tail == 0);
}

TEST_CASE("without call stacks a pass reads the samples to their heads", "[drainer]") {
  const uint64_t later = monotonic_now() + 3600ull * 1000000000u;
  Buffers b;
  b.samples.write(sample(later));
  b.side_band.write(exit_record(later + 1));

  SampleDecoder decoder = fp_decoder();
  BatchQueue queue(64);
  Drainer drainer(decoder, queue, 1);
  drainer.set_side_band_from(1);

  drainer.drain(b.rings);
  CHECK(drainer.events() == 1);
  CHECK(b.samples.meta()->data_tail == b.samples.head);
  // Side-band records still wait for their time: the pid filter and the
  // mapping follower read them in the order the samples came.
  CHECK(b.side_band.meta()->data_tail == 0);
}

TEST_CASE("a pass applies the side band's forks in time order across CPUs", "[drainer]") {
  // root forks child (CPU 1), child forks grandchild (CPU 0, later), the
  // grandchild hits a system-wide site. CPU 0's side band is read first:
  // taken in buffer order, the grandchild's fork would find its parent
  // unknown and its sample would be dropped as another process's.
  const uint64_t now = monotonic_now();
  const uint32_t root = kPid - 3, child = kPid - 2, grandchild = kPid - 1;
  FakePerfMmap samples0, samples1, side0, side1;
  std::vector<RingBuffer> rings;
  for (FakePerfMmap* m : {&samples0, &samples1, &side0, &side1}) {
    auto ring = RingBuffer::map(m->fd, 1);
    REQUIRE(ring.ok());
    rings.push_back(std::move(*ring));
  }
  side0.write(task_record(PERF_RECORD_FORK, now - 2000, grandchild, child));
  side1.write(task_record(PERF_RECORD_FORK, now - 3000, child, root));
  samples0.write(sample(now - 1000, grandchild));

  SampleDecoder decoder = fp_decoder();
  BatchQueue queue(64);
  Drainer drainer(decoder, queue, 1);
  drainer.set_side_band_from(2);
  drainer.set_pid_filter({static_cast<pid_t>(root)});
  drainer.keep_new_processes();  // as -p does
  drainer.drain_to_end(rings);
  CHECK(drainer.traced(child));
  CHECK(drainer.traced(grandchild));
  CHECK(drainer.events() == 1);
  CHECK(drainer.foreign() == 0);
  std::vector<pid_t> started = drainer.take_new_processes();
  CHECK(started == std::vector<pid_t>{static_cast<pid_t>(child), static_cast<pid_t>(grandchild)});
}

namespace {

// Two registers-only sites (identifiers 100, 101): "8@%rdi -4@%eax".
SampleDecoder register_decoder() {
  std::vector<SiteDecoding> sites;
  for (uint32_t id = 0; id < 2; ++id) {
    SiteDecoding d;
    d.site_id = id;
    d.args = parse_arg_specs("8@%rdi -4@%eax", Arch::x86_64);
    for (const ArgSpec& a : d.args) d.sources.push_back(arg_source(a, Arch::x86_64));
    d.regs_mask = uint64_t{1} << x86_reg::ax | uint64_t{1} << x86_reg::di;
    sites.push_back(d);
  }
  SampleDecoder decoder(std::move(sites), true);
  decoder.add_event(100, 0);
  decoder.add_event(101, 1);
  return decoder;
}

// identifier, pid, tid, time, cpu, res, the abi, then rax and rdi (mask order).
std::vector<uint8_t> register_sample(uint64_t id, uint32_t pid, uint64_t time, uint64_t rdi,
                                     uint64_t rax) {
  return record(PERF_RECORD_SAMPLE,
                {id, pair(pid, pid + 1), time, pair(1, 0), PERF_SAMPLE_REGS_ABI_64, rax, rdi});
}

}  // namespace

TEST_CASE("without call stacks the usual samples are packed as decode() reads them", "[drainer]") {
  // A traced process and a foreign one hit two system-wide sites (the pid
  // filter applies from site 0); the first sample of each site goes through
  // decode(), the others are packed straight from the buffer.
  const uint64_t now = monotonic_now();
  const uint32_t traced = kPid - 5, foreign = kPid - 6;
  Buffers b;
  struct Hit {
    uint64_t id;
    uint32_t pid;
    uint64_t rdi, rax;
  };
  std::vector<Hit> hits;
  for (uint64_t i = 0; i < 40; ++i) {
    hits.push_back({100 + (i / 10) % 2, i % 7 == 3 ? foreign : traced, 1000 + i,
                    i % 2 ? 0xffffffff80000000 + i : i});
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    b.samples.write(
        register_sample(hits[i].id, hits[i].pid, now - 10000 + i, hits[i].rdi, hits[i].rax));
  }
  SampleDecoder decoder = register_decoder();
  BatchQueue queue(64);
  Drainer drainer(decoder, queue, 2);
  drainer.set_side_band_from(1);
  drainer.set_pid_filter({static_cast<pid_t>(traced)});
  drainer.drain_to_end(b.rings);

  std::vector<format::Event> got;
  EventBatch batch;
  while (queue.pop_for(batch, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch) {
    EventBatch::Reader reader(batch);
    format::Event e;
    while (reader.next(e)) got.push_back(e);
  }
  std::vector<Hit> kept;
  for (const Hit& h : hits) {
    if (h.pid == traced) kept.push_back(h);
  }
  CHECK(drainer.foreign() == hits.size() - kept.size());
  CHECK(drainer.events() == kept.size());
  CHECK(drainer.events_per_site()[0] + drainer.events_per_site()[1] == kept.size());
  REQUIRE(got.size() == kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    INFO("event " << i);
    CHECK(got[i].site_id == kept[i].id - 100);
    CHECK(got[i].pid == traced);
    CHECK(got[i].tid == traced + 1);
    CHECK(got[i].cpu == 1);
    REQUIRE(got[i].arg_count == 2);
    CHECK(got[i].missing_mask == 0);
    CHECK(got[i].args[0] == kept[i].rdi);
    // -4@%eax: the low 32 bits, sign-extended.
    CHECK(got[i].args[1] ==
          static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(kept[i].rax))));
  }
}
