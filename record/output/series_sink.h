// --switch-output: the recording as a series of complete trace files, each
// readable alone (formats/FORMAT.md 3.3.1): part N is written as
// NAME.000N.trace.partial and renamed NAME.000N.trace when complete. A part
// is closed once it reaches the size, once it has been open the time, or on
// a switch request (SIGUSR2, the control FIFO's "snapshot"); the next part
// opens with the next batch that has records, so that no part is empty and
// its carried thread names are dated before all its records. Each part
// starts with the probe table, the sites added so far (with the time each
// became active) and the names of the threads seen so far. --max-files N
// deletes the oldest parts this recording wrote beyond the newest N, once
// the next part is open; after a write error nothing is deleted.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/trace_writer.h"
#include "record/output/batch_append.h"
#include "record/output/output_policy.h"
#include "record/output/series_naming.h"
#include "record/output/thread_names.h"
#include "record/output/trace_sink.h"

namespace usdt::record {

// What every file of a recording shares: its metadata (without the series
// fields; start_monotonic_ns and start_realtime_ns are the recording's
// anchor, from which each file's is derived), its probe table and the
// writer's options.
struct RecordingFiles {
  format::TraceMetadata metadata;
  std::vector<format::ProbeSite> sites;
  format::WriterOptions writer_options;
  std::string output;  // -o
  std::string recording_id;
  // A test's hook: called once a snapshot file has begun (FlightSink).
  std::function<void()> snapshot_hold;
};

class SeriesSink : public TraceSink {
 public:
  // Opens part 1; fails when it cannot be created.
  static Result<std::unique_ptr<SeriesSink>> create(const RecordingFiles& files,
                                                    const OutputPolicy& policy);

  Status write(const EventBatch& batch) override;
  Status tick() override;
  bool pending() const override;
  Status finish(const format::TraceSummary& summary,
                const std::vector<format::ObjectTable>& objects) override;
  bool finished() const override { return finished_; }
  OutputReport report() const override;
  std::string created_path() const override { return naming_.partial_path(1); }

 private:
  SeriesSink(RecordingFiles files, const OutputPolicy& policy)
      : files_(std::move(files)), naming_(files_.output), policy_(policy) {}
  // Opens the next part; carried names (and the sites added so far) first,
  // dated just before `first_record` (the earliest record of the batch it
  // opens with).
  Status open_part(uint64_t first_record);
  // Ends the open part: its summary (this part's counts), renamed, the
  // oldest parts deleted beyond --max-files. drops: the recording's drops
  // by cause (the last part) or none.
  Status close_part(const std::vector<std::pair<std::string, uint64_t>>& drops, uint64_t closed_ns);
  bool due() const;

  RecordingFiles files_;
  SeriesNaming naming_;
  OutputPolicy policy_;
  std::optional<format::TraceWriter> part_;
  uint32_t sequence_ = 0;   // of the open part, or of the last one closed
  uint64_t opened_ns_ = 0;  // when the open part began (its span's start)
  std::chrono::steady_clock::time_point opened_at_;
  RecordSpan span_;  // of the open part's records
  bool switch_asked_ = false;
  ThreadNames names_;
  // Added sites, as the recording added them: each part carries them all.
  std::vector<std::pair<std::vector<format::ProbeSite>, uint64_t>> added_;
  std::deque<std::pair<uint32_t, uint64_t>> kept_;  // parts completed (number, bytes), oldest first
  uint32_t deleted_ = 0;
  uint64_t events_written_ = 0;  // in every part written
  std::optional<Error> failed_;
  bool finished_ = false;
};

}  // namespace usdt::record
