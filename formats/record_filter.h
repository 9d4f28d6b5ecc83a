// A ReadFilter (formats/trace_reader.h) applied to chunks, by their header's
// time range and bloom bits, and to records, by their fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/trace_reader.h"

namespace usdt::format {

class RecordFilter {
 public:
  // site_count: sites in the probe table (ids beyond it match nothing).
  void set(ReadFilter f, size_t site_count);
  // False when the filter lets everything through.
  bool active() const { return filtering_; }
  // Whether the chunk may hold a record the filter lets through.
  bool chunk_may_match(const ChunkHeader& h) const;
  // Whether the decoder's current record passes.
  bool matches(const ChunkDecoder& d) const;
  // Whether every record of the chunk passes unchecked: the filter is only
  // a segment, and the chunk lies inside it.
  bool passes_whole(const ChunkHeader& h) const;
  // Whether an event passes: matches() for an event, inline for the merger's
  // runs of events (ChunkMerger::next_events) and passes over dropped ones.
  bool event_passes(const Event& e) const {
    const auto& f = filter_;
    if (segment_ && !in_segment(e.time_ns)) return false;
    if (!site_wanted_.empty() && !site_wanted_[e.site_id]) return false;
    if (f.pid && e.pid != *f.pid) return false;
    if (f.tid && e.tid != *f.tid) return false;
    if (f.time_min_ns && e.time_ns < *f.time_min_ns) return false;
    if (f.time_max_ns && e.time_ns > *f.time_max_ns) return false;
    return true;
  }
  // Whether no record at this order time or later passes: it lies past the
  // window's end (events and process records by their time; a lost record
  // from its begin on, as it is ordered by that). The merger then leaves the
  // rest of the chunk unread rather than decode it only to drop it.
  bool past_window(uint64_t order_time) const {
    return filter_.time_max_ns && order_time > *filter_.time_max_ns;
  }
  // Whether the chunk's diagnostics are this reader's to count: without a
  // segment always, else when its min_time_ns lies in the segment.
  bool owns(const ChunkHeader& h) const;

 private:
  // Whether time lies in the segment (true without one).
  bool in_segment(uint64_t time) const {
    return (!filter_.segment_begin_ns || time >= *filter_.segment_begin_ns) &&
           (!filter_.segment_end_ns || time < *filter_.segment_end_ns);
  }

  ReadFilter filter_;
  bool filtering_ = false;
  bool segment_ = false;
  bool only_segment_ = false;      // no filter but the segment
  std::vector<bool> site_wanted_;  // by site id, when filter_.site_ids is set
  uint64_t site_bloom_wanted_ = ~uint64_t{0};
};

}  // namespace usdt::format
