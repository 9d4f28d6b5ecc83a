// --flight-recorder: the recording kept in memory (flight_ring.h), written
// only as snapshots: on SIGUSR2 and the control FIFO's "snapshot" (the
// ring's whole content up to the request), when a --snapshot-on trigger
// fires (its --before and --after window, once the drain loop has read
// past its end; at most --max-snapshots in any period, the others counted
// as suppressed) and at the end (unless --no-exit-snapshot). A snapshot
// holds exactly the records of its window that the ring still held, which
// begins after the ring's horizon (what it pushed out); each is written on
// the snapshot writer's thread (snapshot_writer.h) while recording goes on.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/trace_writer.h"
#include "record/output/flight_ring.h"
#include "record/output/output_policy.h"
#include "record/output/series_naming.h"
#include "record/output/series_sink.h"
#include "record/output/snapshot_writer.h"
#include "record/output/trace_sink.h"
#include "record/output/trigger_watch.h"

namespace usdt::record {

class FlightSink : public TraceSink {
 public:
  // Fails when NAME's directory cannot be written.
  static Result<std::unique_ptr<FlightSink>> create(const RecordingFiles& files,
                                                    const OutputPolicy& policy);
  ~FlightSink() override;

  Status write(const EventBatch& batch) override;
  Status tick() override;
  bool pending() const override;
  Status finish(const format::TraceSummary& summary,
                const std::vector<format::ObjectTable>& objects) override;
  bool finished() const override { return finished_; }
  OutputReport report() const override;
  std::string created_path() const override { return {}; }

  // Called by the ring's output with each chunk the encoder completes.
  void on_chunk(std::string_view block, const format::ChunkHeader& header,
                const format::SiteCounts& counts);

 private:
  FlightSink(const RecordingFiles& files, const OutputPolicy& policy);
  // A trigger hit waiting for its window to be read: [begin, end].
  struct Pending {
    TriggerHit hit;
    uint64_t begin = 0;
    uint64_t end = 0;
  };
  // The snapshot of [begin, end] (begin clipped to what the ring holds).
  Status take_snapshot(uint64_t begin, uint64_t end, const std::string& trigger,
                       const TriggerHit* hit);
  void on_hits(const std::vector<TriggerHit>& hits);
  Status take_due(uint64_t drained_through_ns);
  void reap();

  RecordingFiles files_;
  SeriesNaming naming_;
  OutputPolicy policy_;
  std::optional<format::TraceWriter> encoder_;  // into the ring
  FlightRing ring_;
  std::deque<format::ProcessEvent> chunk_processes_;  // appended, not yet in a chunk
  std::vector<std::pair<std::vector<format::ProbeSite>, uint64_t>> added_;
  std::optional<TriggerWatch> watch_;
  std::deque<Pending> pending_;
  std::deque<uint64_t> taken_at_;  // trigger snapshots' times, for --max-snapshots
  uint64_t suppressed_since_last_ = 0;
  std::vector<uint64_t> fired_, taken_, suppressed_limit_, suppressed_busy_;  // per trigger
  uint64_t newest_ns_ = 0;           // the latest record time seen
  uint64_t drained_through_ns_ = 0;  // every record before it has come (EventBatch)
  uint32_t sequence_ = 0;
  SnapshotWriter writer_;
  std::vector<SnapshotDone> done_;
  std::deque<uint32_t> kept_;  // snapshots written, oldest first (--max-files)
  uint32_t deleted_ = 0;
  std::optional<Error> failed_;
  bool finished_ = false;
};

}  // namespace usdt::record
