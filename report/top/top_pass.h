// top's consumer of the event pass (report/input/event_pass.h), fed as the
// recording grows (report/input/live_trace.h): per probe the events of each
// second of the recording and since its start; the events the kernel lost
// likewise; and for each --start/--end pair, the durations of the pairs
// that ended in each second and since the start. It keeps the two latest
// seconds that had records: the records come in time order, and a screen
// shows the last second wholly before the time the file is complete up to.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "report/input/event_pass.h"
#include "report/input/probe_catalog.h"
#include "report/pairing/latency_analyzer.h"
#include "report/stats/duration_stats.h"

namespace usdt::report {

constexpr uint64_t kSecondNs = 1'000'000'000;

// What happened in one second of the recording, [second, second + 1) after
// its start.
struct SecondCounts {
  uint64_t second = UINT64_MAX;  // none yet
  std::vector<uint64_t> events;  // per probe
  uint64_t events_total = 0;
  uint64_t lost = 0;
  std::vector<std::unique_ptr<DurationStats>> pairs;  // per pair, made when one ends

  void reset(uint64_t s, size_t probes, size_t pair_count);
};

// One start/end pair watched: its analyzer (open starts carry from one
// second to the next) and the durations of its pairs since the start.
struct PairWatch {
  explicit PairWatch(LatencyConfig config) : analyzer(std::move(config)) {}
  LatencyAnalyzer analyzer;
  DurationStats total;
};

class TopPass : public PassConsumer {
 public:
  // start_ns: the timeline time of the recording's start (second 0).
  TopPass(const ProbeCatalog& catalog, uint64_t start_ns, std::vector<LatencyConfig> pairs);

  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e,
                uint64_t time);
  void on_lost(uint32_t file, uint32_t site, const format::LostEvent& lost, uint64_t time);

  // The counts of second s: those kept, or none (nullptr) when nothing was
  // recorded in it (or it is older than the two kept).
  const SecondCounts* second(uint64_t s) const;
  // The second of a timeline time.
  uint64_t second_of(uint64_t time) const {
    return time > start_ns_ ? (time - start_ns_) / kSecondNs : 0;
  }

  uint64_t start_ns() const { return start_ns_; }
  uint64_t last_time() const { return last_time_; }
  const std::vector<uint64_t>& events() const { return events_; }  // per probe, since the start
  const std::vector<uint64_t>& lost_per_probe() const { return lost_per_probe_; }
  uint64_t events_total() const { return events_total_; }
  uint64_t lost_total() const { return lost_total_; }
  const std::vector<std::unique_ptr<PairWatch>>& pairs() const { return pairs_; }

 private:
  // The counts of second s, moving the window on when s is new; nullptr
  // for a second older than those kept.
  SecondCounts* at(uint64_t s);

  const ProbeCatalog* catalog_;
  uint64_t start_ns_;
  std::vector<std::unique_ptr<PairWatch>> pairs_;
  SecondCounts current_;   // the latest second with a record
  SecondCounts previous_;  // the one before it, when it had one
  std::vector<uint64_t> events_;
  std::vector<uint64_t> lost_per_probe_;
  uint64_t events_total_ = 0;
  uint64_t lost_total_ = 0;
  uint64_t last_time_ = 0;
};

}  // namespace usdt::report
