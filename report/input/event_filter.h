// The filters common to every command (--probe, --pid, --tid, --since,
// --until), compiled into one flag per global site so that the per-event
// check is an index and a few compares.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "formats/trace_reader.h"
#include "report/input/probe_catalog.h"
#include "report/input/trace_input.h"
#include "report/input/query.h"

namespace usdt::report {

class EventFilter {
 public:
  // Fails (with the probes the trace has) when a --probe pattern selects no
  // probe.
  static Result<EventFilter> create(const ProbeCatalog& catalog, const FilterOptions& options,
                                    uint64_t timeline_start);

  bool site_selected(uint32_t global_site) const {
    return global_site < selected_.size() && selected_[global_site];
  }

  // time is on the merged timeline.
  bool accepts(uint32_t global_site, const format::Event& e, uint64_t time) const {
    if (!site_selected(global_site)) return false;
    if (pid_ && e.pid != *pid_) return false;
    if (tid_ && e.tid != *tid_) return false;
    return time >= time_min_ && time <= time_max_;
  }

  bool in_time_window(uint64_t time) const { return time >= time_min_ && time <= time_max_; }
  bool selects_every_site() const { return every_site_; }
  bool restricts_anything() const { return !every_site_ || pid_ || tid_ || windowed_; }

  // A command that reads no argument says so, and the reader hint lets the
  // files' readers leave them undecoded (format::ReadFilter::arguments).
  void set_reads_arguments(bool reads) { reads_arguments_ = reads; }

  // The reader-side hint for one file: its selected site ids, pid, tid and
  // time window (on the file's own clock: timeline time - shift_ns).
  format::ReadFilter read_filter(const ProbeCatalog& catalog, uint32_t file, int64_t shift_ns) const;

 private:
  std::vector<uint8_t> selected_;
  bool every_site_ = true;
  bool windowed_ = false;
  std::optional<uint32_t> pid_;
  std::optional<uint32_t> tid_;
  uint64_t time_min_ = 0;
  uint64_t time_max_ = UINT64_MAX;
  bool reads_arguments_ = true;
};

// The reader hint a file gets from filter: its selected sites, pid, tid and
// time window; without the pid and tid when the file has call stacks (their
// mappings need every thread's process records). wanted, per global site:
// only those of the selected sites (chunks without them are then not even
// decompressed).
format::ReadFilter file_read_filter(const EventFilter& filter, const TraceInput& input, uint32_t file,
                                    const std::vector<uint8_t>* wanted = nullptr);

}  // namespace usdt::report
