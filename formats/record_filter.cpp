#include "formats/record_filter.h"

#include <algorithm>

namespace usdt::format {

void RecordFilter::set(ReadFilter f, size_t site_count) {
  filter_ = std::move(f);
  // A list of every site filters nothing (latency's two probes when the
  // trace has no others): checking it per record would be a cost for nothing.
  if (!filter_.site_ids.empty() && site_count > 0) {
    std::vector<bool> listed(site_count, false);
    for (uint32_t id : filter_.site_ids) {
      if (id < site_count) listed[id] = true;
    }
    if (std::find(listed.begin(), listed.end(), false) == listed.end()) filter_.site_ids.clear();
  }
  segment_ = filter_.segment_begin_ns || filter_.segment_end_ns;
  only_segment_ = filter_.site_ids.empty() && !filter_.pid && !filter_.tid &&
                  !filter_.time_min_ns && !filter_.time_max_ns && filter_.events;
  filtering_ = !filter_.site_ids.empty() || filter_.pid || filter_.tid || filter_.time_min_ns ||
               filter_.time_max_ns || segment_ || !filter_.events ||
               filter_.skip_carried_ns.has_value();
  site_wanted_.clear();
  site_bloom_wanted_ = ~uint64_t{0};
  if (!filter_.site_ids.empty()) {
    site_wanted_.assign(site_count, false);
    site_bloom_wanted_ = 0;
    for (uint32_t id : filter_.site_ids) {
      if (id < site_count) site_wanted_[id] = true;
      site_bloom_wanted_ |= site_bit(id);
    }
  }
  if (!filter_.events) {  // as if no site were wanted
    site_wanted_.assign(site_count, false);
    site_bloom_wanted_ = 0;
  }
}

bool RecordFilter::passes_whole(const ChunkHeader& h) const {
  if (!filtering_) return true;
  return only_segment_ && in_segment(h.min_time_ns) && in_segment(h.max_time_ns);
}

bool RecordFilter::owns(const ChunkHeader& h) const { return in_segment(h.min_time_ns); }

bool RecordFilter::chunk_may_match(const ChunkHeader& h) const {
  const auto& f = filter_;
  if (f.skip_carried_ns && h.events == 0 && h.lost_records == 0 &&
      h.min_time_ns == *f.skip_carried_ns && h.max_time_ns == *f.skip_carried_ns) {
    return false;
  }
  if (f.segment_begin_ns && h.max_time_ns < *f.segment_begin_ns) return false;
  if (f.segment_end_ns && h.min_time_ns >= *f.segment_end_ns) return false;
  if (f.time_max_ns && h.min_time_ns > *f.time_max_ns) return false;
  bool in_window = !(f.time_min_ns && h.max_time_ns < *f.time_min_ns);
  bool thread_ok = (!f.pid || (h.pid_bloom & bloom_bit(*f.pid))) &&
                   (!f.tid || (h.tid_bloom & bloom_bit(*f.tid)));
  bool events = h.events > 0 && in_window && thread_ok && (h.site_bloom & site_bloom_wanted_);
  bool process = h.process_events > 0 && thread_ok;
  bool lost = h.lost_records > 0 && in_window;
  return events || process || lost;
}

bool RecordFilter::matches(const ChunkDecoder& d) const {
  const auto& f = filter_;
  switch (d.kind()) {
    case RecordKind::event:
      return event_passes(d.event());
    case RecordKind::process: {
      const ProcessEvent& e = d.process();
      if (segment_ && !in_segment(e.time_ns)) return false;
      if (f.pid && e.pid != *f.pid) return false;
      if (f.tid && e.tid != *f.tid) return false;
      if (f.time_max_ns && e.time_ns > *f.time_max_ns) return false;
      return true;
    }
    case RecordKind::lost: {
      const LostEvent& e = d.lost();
      if (segment_ && !in_segment(e.time_begin_ns)) return false;
      if (!site_wanted_.empty() && e.site_id != kNoSite && !site_wanted_[e.site_id]) return false;
      const uint64_t end = std::max(e.time_begin_ns, e.time_end_ns);
      if (f.time_min_ns && end < *f.time_min_ns) return false;
      // By its order time (time_begin_ns), as past_window() decides for
      // the rest of a chunk: a reversed span (end before begin) does not
      // reach back into the window.
      if (f.time_max_ns && e.time_begin_ns > *f.time_max_ns) return false;
      return true;
    }
  }
  return false;
}

}  // namespace usdt::format
