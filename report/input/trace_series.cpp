// TraceSet::join_series (trace_set.h): the files of recordings that write
// several (formats/FORMAT.md 3.3.1) read together.
#include <algorithm>
#include <cstdio>
#include <map>

#include "report/input/trace_set.h"

namespace usdt::report {
namespace {

std::string seconds_text(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

void TraceSet::join_series() {
  skip_carried_.assign(files_.size(), 0);
  // By recording: its parts and its snapshots, as file indexes.
  std::map<std::string, std::vector<size_t>> parts, snapshots;
  for (size_t i = 0; i < files_.size(); ++i) {
    const format::SeriesInfo& s = files_[i].metadata.series;
    if (s.recording_id.empty()) continue;
    if (s.role == format::FileRole::part) parts[s.recording_id].push_back(i);
    if (s.role == format::FileRole::snapshot) snapshots[s.recording_id].push_back(i);
  }
  auto series_of = [&](size_t i) -> const format::SeriesInfo& { return files_[i].metadata.series; };
  for (auto& [id, files] : parts) {
    std::sort(files.begin(), files.end(),
              [&](size_t a, size_t b) { return series_of(a).sequence < series_of(b).sequence; });
    const uint32_t first = series_of(files.front()).sequence;
    if (first > 1) {
      series_notes_.push_back("'" + files_[files.front()].path + "' is part " +
                              std::to_string(first) + " of a series whose parts 1 to " +
                              std::to_string(first - 1) +
                              " are not read (deleted by --max-files, or not given): the " +
                              "recording is read from part " + std::to_string(first));
    }
    for (size_t k = 1; k < files.size(); ++k) {
      const format::SeriesInfo& before = series_of(files[k - 1]);
      const format::SeriesInfo& part = series_of(files[k]);
      if (part.sequence == before.sequence + 1) {
        skip_carried_[files[k]] = part.carried_ns;
        continue;
      }
      series_notes_.push_back("parts " + std::to_string(before.sequence + 1) + " to " +
                              std::to_string(part.sequence - 1) + " of the series of '" +
                              files_[files[k]].path +
                              "' are not read: the events they held are missing");
    }
  }
  for (auto& [id, files] : snapshots) {
    std::sort(files.begin(), files.end(), [&](size_t a, size_t b) {
      return series_of(a).window_begin_ns < series_of(b).window_begin_ns;
    });
    for (size_t k = 1; k < files.size(); ++k) {
      const format::SeriesInfo& before = series_of(files[k - 1]);
      const format::SeriesInfo& next = series_of(files[k]);
      if (next.window_begin_ns > before.window_end_ns) continue;
      const uint64_t to = std::min(before.window_end_ns, next.window_end_ns);
      series_notes_.push_back("snapshots '" + files_[files[k - 1]].path + "' and '" +
                              files_[files[k]].path + "' of one recording overlap for " +
                              seconds_text(to - next.window_begin_ns) +
                              " s: what both hold is counted twice (read them one at a time)");
    }
  }
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (skip_carried_[i] == 0) continue;
    readers_[i].set_filter(within_segment(format::ReadFilter{}, static_cast<uint32_t>(i)));
  }
}

}  // namespace usdt::report
