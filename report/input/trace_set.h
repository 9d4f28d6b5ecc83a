// The trace files named on the command line, read through format::TraceReader
// and merged in time order (a k-way merge over the readers' heads; each
// reader already returns its own file in time order).
#pragma once

#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/trace_reader.h"
#include "report/input/trace_input.h"

namespace usdt::report {

// The status of path when it is a regular file; fails, without opening it
// (a FIFO without a writer would block), for a missing file, a directory,
// a pipe, a device or a socket: "'X' is a directory, not a trace file".
Result<struct stat> regular_file_status(const std::string& path);

class TraceSet : public TraceInput {
 public:
  // Opens every file. A file that cannot be opened, or is not a regular
  // file, is left out with a warning (in warnings()); fails only when no
  // file could be opened. The same recording named twice (same file under
  // two names, or a copy: same hostname, start_monotonic_ns and
  // start_realtime_ns) is read once; duplicates() says which were dropped.
  // decode_threads: per file (format::ReaderOptions::decode_threads);
  // memory_budget: per reader (format::ReaderOptions::memory_budget), 0 for
  // the reader's default.
  static Result<std::unique_ptr<TraceSet>> open(const std::vector<std::string>& paths,
                                                unsigned decode_threads = 1,
                                                uint64_t memory_budget = 0);

  bool next_record(Record& record) override;
  // (A segment keeps its bounds: they are added to the filter given.)
  void set_read_filter(uint32_t file, const format::ReadFilter& filter) override;
  // Cut by the chunks' record counts and start times; the segments read the
  // same files through forked readers (format::TraceReader::fork).
  std::vector<uint64_t> segment_bounds(unsigned n) const override;
  std::unique_ptr<TraceInput> open_segment(uint64_t begin, uint64_t end) const override;
  IndexedRecords indexed_records() const override;
  void release_reading() override;
  void adopt_segments(const std::vector<std::unique_ptr<TraceInput>>& segments) override;

  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<std::string>& duplicates() const { return duplicates_; }
  // About the files of recordings that write several (format 1.7): parts
  // of a series that are missing, snapshots that overlap.
  const std::vector<std::string>& series_notes() const { return series_notes_; }

 private:
  TraceSet() = default;
  void advance(size_t i);
  void finish_file(size_t i);
  // filter with this segment's bounds on file's clock (none outside a
  // segment), and the file's carried records left out (join_series).
  format::ReadFilter within_segment(format::ReadFilter filter, uint32_t file) const;
  // trace_series.cpp: the parts of a series read as one recording: a
  // part's carried names are left out when the part before it is read too
  // (skip_carried_); what is missing or overlaps goes to series_notes_.
  void join_series();

  std::vector<format::TraceReader> readers_;
  std::vector<format::ReadFilter> read_filters_;    // per reader, as last set
  std::vector<format::ReadDiagnostics> open_diag_;  // per reader, when opened
  std::vector<uint8_t> live_;
  std::vector<uint64_t> head_time_;
  std::vector<Record> heads_;  // each live reader's current record
  size_t last_ = SIZE_MAX;
  bool primed_ = false;
  bool adopted_ = false;  // read by segments: next() has nothing more
  std::vector<std::string> warnings_;
  std::vector<std::string> duplicates_;
  std::vector<std::string> series_notes_;
  std::vector<uint64_t> skip_carried_;  // per file: its carried records' time, 0 = read them
};

}  // namespace usdt::report
