// What the drainer keeps of threads and processes over a long recording
// with process churn: a pass after a process's exit, nothing (the tables
// hold what still runs); a thread in another PID namespace gets its pid
// namespace record once, before its first event; and how far the queued
// records are complete moves with the passes.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <ctime>
#include <vector>

#include "common/arg_spec.h"
#include "record/kernel/ring_buffer.h"
#include "record/kernel/sample_decoder.h"
#include "record/plan/site_sampling.h"
#include "record/session/batch_queue.h"
#include "record/session/drainer.h"
#include "tests/unit/support/fake_perf_mmap.h"

using namespace usdt;
using namespace usdt::record;

namespace {

constexpr uint32_t kRoot = 0x7fff0000;  // no process has these pids

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

// A fork or exit of process pid (its main thread), with the sample_id trailer.
std::vector<uint8_t> task(uint32_t type, uint64_t time, uint32_t pid, uint32_t ppid) {
  return record(type, {pair(pid, ppid), pair(pid, ppid), time, pair(pid, pid), time, pair(0, 0)});
}

// A sample of the one registers-only site (no identifier) by pid's main
// thread: pid, tid, time, cpu, res, the abi, then rax and rdi.
std::vector<uint8_t> sample(uint32_t pid, uint64_t time) {
  return record(PERF_RECORD_SAMPLE,
                {pair(pid, pid), time, pair(0, 0), PERF_SAMPLE_REGS_ABI_64, 1, 2});
}

SampleDecoder decoder() {
  SiteDecoding d;
  d.site_id = 0;
  d.args = parse_arg_specs("8@%rdi -4@%eax", Arch::x86_64);
  for (const ArgSpec& a : d.args) d.sources.push_back(arg_source(a, Arch::x86_64));
  d.regs_mask = uint64_t{1} << x86_reg::ax | uint64_t{1} << x86_reg::di;
  std::vector<SiteDecoding> sites{d};
  return SampleDecoder(std::move(sites), false);
}

}  // namespace

TEST_CASE("2000 short processes leave nothing in the drainer's tables", "[drainer]") {
  FakePerfMmap samples, side_band;
  std::vector<RingBuffer> rings;
  for (FakePerfMmap* m : {&samples, &side_band}) {
    auto ring = RingBuffer::map(m->fd, 1);
    REQUIRE(ring.ok());
    rings.push_back(std::move(*ring));
  }
  SampleDecoder dec = decoder();
  BatchQueue queue(4096);
  Drainer drainer(dec, queue, 1);
  drainer.set_side_band_from(1);
  drainer.set_pid_filter({static_cast<pid_t>(kRoot)});
  // Even children live in a container's namespace, odd ones in ours.
  drainer.set_namespace_lookup([](uint32_t pid, uint32_t tid) -> std::optional<ThreadNamespace> {
    if (pid % 2 != 0) return std::nullopt;
    return ThreadNamespace{77, pid - kRoot, tid - kRoot};
  });

  const uint64_t base = monotonic_now() - 10'000'000'000;  // all before the passes
  constexpr uint32_t kRounds = 100, kPerRound = 20;
  uint64_t time = base;
  for (uint32_t round = 0; round < kRounds; ++round) {
    for (uint32_t i = 0; i < kPerRound; ++i) {
      const uint32_t child = kRoot + 1 + round * kPerRound + i;
      side_band.write(task(PERF_RECORD_FORK, time += 10, child, kRoot));
      samples.write(sample(child, time += 10));
      side_band.write(task(PERF_RECORD_EXIT, time += 10, child, kRoot));
    }
    drainer.drain(rings);
  }
  drainer.drain_to_end(rings);

  CHECK(drainer.events() == kRounds * kPerRound);
  CHECK(drainer.foreign() == 0);
  const Drainer::TableSizes t = drainer.table_sizes();
  CHECK(t.seen_threads == 0);
  CHECK(t.named_threads == 0);
  CHECK(t.traced_processes == 1);  // the root, whose exit never came
  CHECK(t.counted_processes == 0);
  CHECK(t.namespaces_at_fork == 0);

  // One pid namespace record per even child, at its event's time; the
  // progress each batch carries never goes back.
  size_t namespace_records = 0;
  uint64_t progress = 0;
  EventBatch batch;
  while (queue.pop_for(batch, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch) {
    CHECK(batch.complete_before_ns >= progress);
    progress = std::max(progress, batch.complete_before_ns);
    EventBatch::Reader reader(batch);
    format::Event e;
    std::vector<uint64_t> event_times;
    while (reader.next(e)) event_times.push_back(e.time_ns);
    for (const format::ProcessEvent& p : batch.processes) {
      if (p.kind != format::ProcessEventKind::pid_namespace) continue;
      ++namespace_records;
      CHECK(p.pid % 2 == 0);
      CHECK(p.ns_pid == p.pid - kRoot);
      CHECK(p.pid_namespace == 77);
      CHECK(std::find(event_times.begin(), event_times.end(), p.time_ns) != event_times.end());
    }
    queue.recycle(std::move(batch));
    batch = EventBatch();
  }
  CHECK(namespace_records == kRounds * kPerRound / 2);
  CHECK(drainer.namespace_records() == kRounds * kPerRound / 2);
  CHECK(progress > time);  // every record read so far is queued
  CHECK(progress == drainer.complete_before());
}
