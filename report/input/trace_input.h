// What the commands read: records of one or several trace files merged in
// time order, with the files' probes in one ProbeCatalog. TraceSet reads
// real files; tests feed records from memory through the same interface.
//
// Time: every record carries `time`, on the merged timeline. For files of
// one host it is the recorded CLOCK_MONOTONIC value itself. CLOCK_MONOTONIC
// of different hosts cannot be compared, so when the hostnames differ each
// file is shifted onto the first file's clock through its CLOCK_REALTIME
// anchor (start_realtime_ns - start_monotonic_ns): as good as the hosts'
// wall clocks agree.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_reader.h"
#include "formats/trace_types.h"
#include "report/input/probe_catalog.h"

namespace usdt::report {

struct Record {
  format::RecordKind kind = format::RecordKind::event;
  uint32_t file = 0;
  uint64_t time = 0;  // on the merged timeline (see above)
  const format::Event* event = nullptr;          // kind == event
  const format::ProcessEvent* process = nullptr;  // kind == process
  const format::LostEvent* lost = nullptr;        // kind == lost
};

struct TraceFileInfo {
  std::string path;
  format::TraceMetadata metadata;
  // The symbols of the files its stacks run through (format 1.3 object
  // blocks), known at open: stacks are named from these alone. Shared with
  // the segments opened from this input and with the file's reader.
  std::shared_ptr<const std::vector<format::ObjectTable>> object_tables;
  const std::vector<format::ObjectTable>& objects() const {
    static const std::vector<format::ObjectTable> none;
    return object_tables ? *object_tables : none;
  }
  int64_t shift_ns = 0;  // added to the file's times to get timeline times
  // Filled in when the file has been read to its end.
  std::optional<format::TraceSummary> summary;
  format::ReadDiagnostics diagnostics;
  bool read_to_end = false;
};

class TraceInput {
 public:
  virtual ~TraceInput() = default;

  // The next record in time order; false at the end of all files.
  bool next(Record& record) {
    if (run_left_ == 0) return next_record(record);
    // The common case inline: the rest of a run of events (set_run).
    --run_left_;
    const format::Event* e = run_++;
    record.kind = format::RecordKind::event;
    record.file = run_file_;
    record.time = e->time_ns;
    record.event = e;
    return true;
  }

  // The events next() would return next, when they are the rest of a run
  // of events of one file whose clock is the timeline's (their time is
  // their time_ns): their number (0: none), *first and *file; next() then
  // goes on after them. For a command's innermost loop; each stays valid
  // as long as the record next() would have returned (until the call of
  // next() after the one that returned it), so all of them until the
  // caller's next call of next().
  uint32_t take_rest_of_run(const format::Event** first, uint32_t* file) {
    const uint32_t n = run_left_;
    *first = run_;
    *file = run_file_;
    run_ += n;
    run_left_ = 0;
    return n;
  }

  // Lets a file's reader skip what a command will not look at (see
  // format::ReadFilter). Only a hint: commands still check every record.
  virtual void set_read_filter(uint32_t file, const format::ReadFilter& filter) {
    (void)file;
    (void)filter;
  }

  // Parallel reading (report/input/segments.h). The timeline cut into at most n
  // segments holding about as many records each: ascending bounds, the
  // segment k being [bounds[k], bounds[k+1]); the first bound is 0 and the
  // last UINT64_MAX, which open_segment takes for open ends. Fewer than 3
  // bounds (one segment) when the input cannot be cut: memory input, too
  // few chunks.
  virtual std::vector<uint64_t> segment_bounds(unsigned n) const {
    (void)n;
    return {};
  }
  // An input over the same files that returns only the records of this one
  // whose time lies in [begin, end), in the same order, with the same read
  // filters; before this input's first next(). nullptr when not possible.
  virtual std::unique_ptr<TraceInput> open_segment(uint64_t begin, uint64_t end) const {
    (void)begin;
    (void)end;
    return nullptr;
  }
  // What the files' chunk indexes count: every record, and those in chunks
  // that also hold process records (which a pass needing only the process
  // records decodes; format::ReadFilter::events). Zeros when unknown.
  struct IndexedRecords {
    uint64_t all = 0;
    uint64_t in_process_chunks = 0;
  };
  virtual IndexedRecords indexed_records() const { return {}; }
  // Where a segment begins on the timeline (its open_segment() begin); 0
  // for an input that is not a segment.
  uint64_t segment_begin() const { return segment_begin_; }
  // Where it ends (exclusive); UINT64_MAX for an input that is not a segment.
  uint64_t segment_end() const { return segment_end_; }
  // A segment read to its end: lets go of its readers and of what only
  // reading needed, keeping what adopt_segments() takes from it. For
  // outputs of many segments (report/input/ordered_segments.h).
  virtual void release_reading() {}
  // After the segments were read to their ends, in order: this input takes
  // their diagnostics (each counted once) as if it had read everything.
  virtual void adopt_segments(const std::vector<std::unique_ptr<TraceInput>>& segments) {
    (void)segments;
  }

  const ProbeCatalog& catalog() const { return catalog_; }
  const std::vector<TraceFileInfo>& files() const { return files_; }

  // The earliest recording start on the timeline: "0 s" of --since/--until
  // and of printed relative times.
  uint64_t timeline_start() const { return timeline_start_; }

  // Whether the files come from more than one host (events then carry it).
  bool hosts_differ() const { return hosts_differ_; }

 protected:
  // What next() returns when no run is pending.
  virtual bool next_record(Record& record) = 0;
  // The n events from first on, of file (whose clock is the timeline's:
  // shift_ns 0), are the next records, for next() to return without a call
  // to next_record(). Each must stay valid until the call after the one
  // that returns it (format::TraceReader::next_events).
  void set_run(const format::Event* first, uint32_t n, uint32_t file) {
    run_ = first;
    run_left_ = n;
    run_file_ = file;
  }

  // Sets shift_ns of every file, timeline_start and hosts_differ from the
  // files' metadata. Call once files_ is complete.
  void compute_timeline();

  ProbeCatalog catalog_;
  uint64_t segment_begin_ = 0;
  uint64_t segment_end_ = UINT64_MAX;
  std::vector<TraceFileInfo> files_;
  uint64_t timeline_start_ = 0;
  bool hosts_differ_ = false;

 private:
  const format::Event* run_ = nullptr;
  uint32_t run_left_ = 0;
  uint32_t run_file_ = 0;
};

// The key domain of each file: its index when hosts differ, else 0 (pids
// and tids of different hosts are different keys).
std::vector<uint32_t> file_domains(const TraceInput& input);

// CLOCK_REALTIME of a timeline time, through the first file's anchor.
uint64_t realtime_of(const TraceInput& input, uint64_t time);

}  // namespace usdt::report
