#include "report/output/summary_series.h"

#include "report/stats/duration.h"

namespace usdt::report {
namespace {

// "+1.234000000 s" on the timeline of the input.
std::string at_text(const TraceInput& input, uint32_t file, uint64_t file_time) {
  const uint64_t t = file_time + static_cast<uint64_t>(input.files()[file].shift_ns);
  return "+" + format_seconds(t - std::min(t, input.timeline_start())) + " s";
}

// The probe of a file's site, "provider:name", or "site N" when unknown.
std::string site_name(const TraceInput& input, uint32_t file, uint32_t site_id) {
  const uint32_t global = input.catalog().global_site(file, site_id);
  if (global == ProbeCatalog::kUnknownSite) return "site " + std::to_string(site_id);
  return input.catalog().probe_of_site(global).shown_name;
}

std::string trigger_text(const TraceInput& input, uint32_t file) {
  const format::SeriesInfo& s = input.files()[file].metadata.series;
  std::string t = "           taken on: " + s.trigger + "\n";
  if (s.trigger_site != format::kNoSite) {
    t += "           fired by: " + site_name(input, file, s.trigger_site) + " in pid " +
         std::to_string(s.trigger_pid) + " tid " + std::to_string(s.trigger_tid) + " at " +
         at_text(input, file, s.trigger_time_ns);
    if (s.trigger_start_ns != 0 && s.trigger_time_ns >= s.trigger_start_ns) {
      t += " (a pair from " + at_text(input, file, s.trigger_start_ns) + " that lasted " +
           format_seconds(s.trigger_time_ns - s.trigger_start_ns) + " s)";
    }
    t += "\n";
  }
  if (s.suppressed != 0) {
    t += "           " + std::to_string(s.suppressed) +
         " trigger(s) fired since the previous snapshot without taking one\n";
  }
  return t;
}

}  // namespace

std::string series_text(const TraceInput& input, uint32_t file) {
  const format::SeriesInfo& s = input.files()[file].metadata.series;
  switch (s.role) {
    case format::FileRole::whole:
      return {};
    case format::FileRole::part:
      return "           part " + std::to_string(s.sequence) + " of a series (recording " +
             s.recording_id + ")\n";
    case format::FileRole::snapshot:
      return "           snapshot " + std::to_string(s.sequence) + " of a flight recorder " +
             "(recording " + s.recording_id + "): from " + at_text(input, file, s.window_begin_ns) +
             " to " + at_text(input, file, s.window_end_ns) + "\n" + trigger_text(input, file);
  }
  return {};
}

void write_series_json(JsonWriter& w, const TraceInput& input, uint32_t file) {
  const format::SeriesInfo& s = input.files()[file].metadata.series;
  if (s.role == format::FileRole::whole) return;
  const int64_t shift = input.files()[file].shift_ns;
  auto on_timeline = [shift](uint64_t t) { return t + static_cast<uint64_t>(shift); };
  w.key("series").begin_object();
  w.key("role").string(s.role == format::FileRole::part ? "part" : "snapshot");
  w.key("recording_id").string(s.recording_id).key("sequence").uint(s.sequence);
  if (s.role == format::FileRole::snapshot) {
    w.key("window_begin_ns").uint(on_timeline(s.window_begin_ns));
    w.key("window_end_ns").uint(on_timeline(s.window_end_ns));
    w.key("trigger").string(s.trigger);
    const bool fired = s.trigger_site != format::kNoSite;
    w.key("trigger_probe");
    if (fired) {
      w.string(site_name(input, file, s.trigger_site));
    } else {
      w.null();
    }
    w.key("trigger_time_ns").uint_or_null(fired, on_timeline(s.trigger_time_ns));
    w.key("trigger_start_ns")
        .uint_or_null(fired && s.trigger_start_ns != 0, on_timeline(s.trigger_start_ns));
    w.key("trigger_pid").uint_or_null(fired, s.trigger_pid);
    w.key("trigger_tid").uint_or_null(fired, s.trigger_tid);
    w.key("suppressed").uint(s.suppressed);
  }
  w.end_object();
}

}  // namespace usdt::report
