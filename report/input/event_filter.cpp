#include "report/input/event_filter.h"

namespace usdt::report {

Result<EventFilter> EventFilter::create(const ProbeCatalog& catalog, const FilterOptions& options,
                                        uint64_t timeline_start) {
  EventFilter f;
  f.selected_.assign(catalog.site_count(), options.probes.empty() ? 1 : 0);
  f.every_site_ = options.probes.empty();
  if (!options.probes.empty()) {
    std::vector<uint8_t> probe_selected(catalog.probes().size(), 0);
    for (const std::string& pattern : options.probes) {
      std::vector<uint32_t> matched = catalog.probes_matching(pattern);
      if (matched.empty()) return Error(unknown_probe_message(pattern, catalog));
      for (uint32_t p : matched) probe_selected[p] = 1;
    }
    for (uint32_t s = 0; s < catalog.site_count(); ++s) {
      f.selected_[s] = probe_selected[catalog.site(s).probe];
    }
  }
  f.pid_ = options.pid;
  f.tid_ = options.tid;
  if (options.since_ns) {
    f.time_min_ = timeline_start + *options.since_ns;
    f.windowed_ = true;
  }
  if (options.until_ns) {
    f.time_max_ = timeline_start + *options.until_ns;
    f.windowed_ = true;
  }
  return f;
}

format::ReadFilter EventFilter::read_filter(const ProbeCatalog& catalog, uint32_t file,
                                            int64_t shift_ns) const {
  format::ReadFilter rf;
  rf.arguments = reads_arguments_;
  rf.pid = pid_;
  rf.tid = tid_;
  if (windowed_) {
    // timeline - shift, clamped: a window outside the file's clock range
    // becomes "no bound" rather than a wrapped-around one.
    auto own_clock = [&](uint64_t t) -> std::optional<uint64_t> {
      __int128 v = static_cast<__int128>(t) - shift_ns;
      if (v < 0 || v > static_cast<__int128>(UINT64_MAX)) return std::nullopt;
      return static_cast<uint64_t>(v);
    };
    if (time_min_ > 0) rf.time_min_ns = own_clock(time_min_);
    if (time_max_ != UINT64_MAX) rf.time_max_ns = own_clock(time_max_);
  }
  if (every_site_) return rf;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    if (selected_[s] && catalog.site(s).file == file) rf.site_ids.push_back(catalog.site(s).site_id);
  }
  // No selected site in this file: an impossible id keeps the reader from
  // treating the empty list as "everything".
  if (rf.site_ids.empty()) rf.site_ids.push_back(format::kNoSite);
  return rf;
}

namespace {

// A file with call stacks (object blocks, format 1.3) needs the mmap and
// fork events of every thread and process, also of those --pid/--tid leave
// out: a library may be mapped by another thread, a child inherits its
// parent's mappings. The reader then passes the events of every pid and
// tid, and EventFilter::accepts still selects them.
format::ReadFilter reader_hint(const TraceInput& input, uint32_t file, format::ReadFilter rf) {
  if (!input.files()[file].objects().empty()) {
    rf.pid.reset();
    rf.tid.reset();
  }
  return rf;
}

}  // namespace

format::ReadFilter file_read_filter(const EventFilter& filter, const TraceInput& input, uint32_t file,
                                    const std::vector<uint8_t>* wanted) {
  const ProbeCatalog& catalog = input.catalog();
  format::ReadFilter rf = filter.read_filter(catalog, file, input.files()[file].shift_ns);
  if (wanted != nullptr) {
    rf.site_ids.clear();
    for (uint32_t s = 0; s < catalog.site_count(); ++s) {
      if (catalog.site(s).file == file && filter.site_selected(s) && s < wanted->size() && (*wanted)[s]) {
        rf.site_ids.push_back(catalog.site(s).site_id);
      }
    }
    // Nothing wanted in this file: an impossible id, since an empty list
    // means "every site" to the reader.
    if (rf.site_ids.empty()) rf.site_ids.push_back(format::kNoSite);
  }
  return reader_hint(input, file, std::move(rf));
}

}  // namespace usdt::report
