// What the writer thread writes the drain loop's batches through
// (record/session/writer_thread.h): one trace file (file_sink.h), a series
// of them (series_sink.h) or a flight recorder's ring and its snapshots
// (flight_sink.h). Each sink is used from the writer thread only; a write
// error is sticky, as the TraceWriter's.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "formats/trace_types.h"
#include "record/session/batch_queue.h"

namespace usdt::record {

// What the end report says of the output, beyond the recording's totals.
struct OutputReport {
  std::string description;  // "written to x.trace", "in 7 files x.0001.trace .. x.0007.trace"
  std::vector<std::string> lines;  // further lines (snapshots, files deleted, ring figures)
  uint64_t bytes = 0;              // on disk, in the files kept
  uint64_t events_in_files = 0;    // events in the files written (deleted ones included)
  bool complete = true;            // every file written got its end
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;

  // The drain loop's batch, in its order: added sites, process records,
  // events, lost records; then its requests (batch.requests).
  virtual Status write(const EventBatch& batch) = 0;
  // About once a second, and when the queue has been empty for a second:
  // writes the pending chunk (and what waits for time: a rotation by time,
  // a trigger's snapshot whose window has passed).
  virtual Status tick() = 0;
  // Whether something written has not reached the file yet.
  virtual bool pending() const = 0;
  // --max-size reached: the recording should stop.
  virtual bool full() const { return false; }
  // The end: the pending records, the symbols of the files in stacks, the
  // summaries. summary holds the recording's figures (the drain loop's
  // counts, drops by cause, its span); each file's summary counts that
  // file's own records.
  virtual Status finish(const format::TraceSummary& summary,
                        const std::vector<format::ObjectTable>& objects) = 0;
  // Whether the last file got its end (after finish()).
  virtual bool finished() const = 0;
  virtual OutputReport report() const = 0;
  // The file made at set-up (nothing recorded yet), which the session
  // removes when the recording cannot start; "" when there is none.
  virtual std::string created_path() const = 0;

  // When the recording's first events were enabled (FORMAT.md 3.6.1): a
  // first file's span, a snapshot's earliest window. From the session's
  // thread, before the first batch.
  void set_enabled_ns(uint64_t ns) { enabled_ns_.store(ns, std::memory_order_relaxed); }

 protected:
  uint64_t enabled_ns() const { return enabled_ns_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> enabled_ns_{0};
};

}  // namespace usdt::record
