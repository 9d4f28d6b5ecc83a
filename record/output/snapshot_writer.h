// Writes the flight recorder's snapshots (flight_sink.h) on a thread of its
// own, so that the recording goes on while a large ring is written: each
// snapshot is a complete trace file (formats/FORMAT.md 3.3.1) made of the
// chunks the ring held for its window, copied as they are, and the chunks
// at the window's edges decoded and encoded again with only the records
// inside it. Written as NAME.000N.trace.partial, renamed when complete. Jobs
// are written in order; a failed one is reported and the next tried.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/result.h"
#include "formats/trace_writer.h"
#include "record/output/flight_ring.h"

namespace usdt::record {

struct SnapshotJob {
  uint32_t sequence = 0;
  std::string path;                      // final name
  std::string partial;                   // written under this name first
  format::TraceMetadata metadata;        // with its series fields
  std::vector<format::ProbeSite> sites;  // the probe table
  std::vector<std::pair<std::vector<format::ProbeSite>, uint64_t>> added;  // added sites blocks
  std::vector<format::ProcessEvent> carried;  // comm records at metadata.series.carried_ns
  std::vector<std::shared_ptr<const RingChunk>> chunks;  // overlapping the window, oldest first
  format::WriterOptions writer_options;
};

// What became of a job.
struct SnapshotDone {
  uint32_t sequence = 0;
  std::string path;
  std::string trigger;
  uint64_t window_begin_ns = 0;
  uint64_t window_end_ns = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;
  std::optional<Error> error;
  bool deleted = false;  // --max-files took it since
};

// Writes one snapshot; fails (the partial file left as far as it got) on a
// write error. hold_after_start: a test's hook, called once the file has
// begun (USDT_RECORD_TEST_FAULT=snapshot_stall blocks there).
SnapshotDone write_snapshot(const SnapshotJob& job, const std::function<void()>& hold_after_start);

class SnapshotWriter {
 public:
  explicit SnapshotWriter(std::function<void()> hold_after_start = {})
      : hold_(std::move(hold_after_start)) {}
  ~SnapshotWriter();  // finishes the jobs queued

  void add(SnapshotJob job);
  // The jobs done since the last call.
  std::vector<SnapshotDone> take_done();
  // Waits until every job queued is done.
  void wait();
  // Jobs queued or being written.
  size_t busy();

 private:
  void run();

  std::function<void()> hold_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<SnapshotJob> jobs_;
  std::vector<SnapshotDone> done_;
  size_t writing_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace usdt::record
