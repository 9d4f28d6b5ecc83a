#include "report/stats/summary_facts.h"

#include <algorithm>

#include "report/stats/duration.h"
#include "report/stats/histogram_bucket.h"

namespace usdt::report {

namespace {

// The recording's span (FORMAT.md 3.6.1): from the earliest start to the
// latest clean end, or to the last record read when a file has no summary
// (cut short). A file's start is when its recorder enabled the first event
// (format 1.5), else when it created the file.
Span recording_span(const TraceInput& input, uint64_t last_record_time, bool any_record) {
  Span span;
  span.start = UINT64_MAX;
  for (const TraceFileInfo& f : input.files()) {
    const uint64_t enabled = f.summary ? f.summary->enabled_monotonic_ns : 0;
    const uint64_t start = enabled != 0 ? enabled : f.metadata.start_monotonic_ns;
    span.start = std::min(span.start, start + static_cast<uint64_t>(f.shift_ns));
  }
  if (input.files().empty()) span.start = input.timeline_start();
  span.end = span.start;
  for (const TraceFileInfo& f : input.files()) {
    if (f.summary) {
      span.end = std::max(span.end, f.summary->end_monotonic_ns + static_cast<uint64_t>(f.shift_ns));
    } else {
      span.end_from_summary = false;
    }
  }
  if (any_record) span.end = std::max(span.end, last_record_time);
  return span;
}

std::vector<std::pair<std::string, uint64_t>> drops_by_cause(const TraceInput& input) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const TraceFileInfo& f : input.files()) {
    if (!f.summary) continue;
    for (const auto& [cause, count] : f.summary->dropped) {
      if (count == 0) continue;
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& d) { return d.first == cause; });
      if (it == out.end()) {
        out.emplace_back(cause, count);
      } else {
        it->second += count;
      }
    }
  }
  return out;
}

std::vector<ProbeActivity> probe_activity(const TraceInput& input, const EventFilter& filter) {
  const ProbeCatalog& catalog = input.catalog();
  std::vector<ProbeActivity> out(catalog.probes().size());
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    if (!filter.site_selected(s)) continue;
    const SiteInfo& site = catalog.site(s);
    ProbeActivity& a = out[site.probe];
    ++a.sites;
    if (site.active_since_ns == 0) continue;
    uint64_t since = site.active_since_ns + static_cast<uint64_t>(input.files()[site.file].shift_ns);
    if (a.late_sites == 0 || since < a.late_since) a.late_since = since;
    ++a.late_sites;
  }
  return out;
}

// Every selected probe, most events first.
std::vector<ProbeRow> probe_rows(const ProbeCatalog& catalog, const EventFilter& filter, const SummaryStats& stats) {
  std::vector<uint8_t> probe_selected(catalog.probes().size(), 0);
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    if (filter.site_selected(s)) probe_selected[catalog.site(s).probe] = 1;
  }
  std::vector<ProbeRow> rows;
  for (uint32_t p = 0; p < catalog.probes().size(); ++p) {
    if (probe_selected[p]) rows.push_back({p, stats.events_per_probe()[p], stats.lost_per_probe()[p]});
  }
  std::sort(rows.begin(), rows.end(), [&](const ProbeRow& a, const ProbeRow& b) {
    if (a.count != b.count) return a.count > b.count;
    return catalog.probes()[a.probe].shown_name < catalog.probes()[b.probe].shown_name;
  });
  return rows;
}

// The files' own summaries against what was read (only meaningful unfiltered).
std::vector<std::string> disagreements(const TraceInput& input, const EventFilter& filter, const SummaryPass& whole) {
  std::vector<std::string> out;
  if (filter.restricts_anything()) return out;
  for (uint32_t f = 0; f < input.files().size(); ++f) {
    const TraceFileInfo& info = input.files()[f];
    if (!info.summary) continue;
    if (info.summary->events != whole.stats.events_of_file(f)) {
      out.push_back("'" + info.path + "': its summary counts " + std::to_string(info.summary->events) +
                    " events, " + std::to_string(whole.stats.events_of_file(f)) + " could be read");
    }
    if (info.summary->lost != whole.lost_records_per_file[f]) {
      out.push_back("'" + info.path + "': its summary counts " + std::to_string(info.summary->lost) +
                    " lost events, the lost records read count " + std::to_string(whole.lost_records_per_file[f]));
    }
  }
  return out;
}

}  // namespace

std::string rate_text(uint64_t count, uint64_t duration_ns) {
  return decimal_ratio(static_cast<unsigned __int128>(count) * 1000000000u, duration_ns);
}

uint64_t active_duration(const Span& span, const ProbeActivity& a) {
  if (!a.all_late()) return span.end - span.start;
  uint64_t from = std::max(span.start, a.late_since);
  return span.end > from ? span.end - from : 0;
}

std::string activity_text(const TraceInput& input, const ProbeActivity& a) {
  if (a.late_sites == 0) return {};
  std::string at = "+" + format_seconds(a.late_since - std::min(a.late_since, input.timeline_start())) + " s";
  if (a.all_late()) {
    // "2026-11-29 10:00:02.314000000 UTC" -> "10:00:02.314 UTC"
    std::string wall = wall_clock_text(realtime_of(input, a.late_since));
    return "(attached at " + at + ", " + wall.substr(11, 12) + " UTC: no events before)";
  }
  if (a.late_sites == 1) {
    return "(1 of its " + std::to_string(a.sites) + " sites attached at " + at + ": no events of that site before)";
  }
  return "(" + std::to_string(a.late_sites) + " of its " + std::to_string(a.sites) + " sites attached at " + at +
         " or later: no events of them before)";
}

SummaryFacts summarize(const TraceInput& input, const EventFilter& filter, const FilterOptions& window,
                       const SummaryPass& whole, bool by_host, std::vector<std::string> hosts) {
  const ProbeCatalog& catalog = input.catalog();
  SummaryFacts f;
  f.span = recording_span(input, whole.last_record_time, whole.any_record);
  // With --since/--until the span (and so the rates) is the window's part
  // of the recording.
  if (window.since_ns) {
    f.span.start = std::min(f.span.end, std::max(f.span.start, input.timeline_start() + *window.since_ns));
  }
  if (window.until_ns) {
    f.span.end = std::max(f.span.start, std::min(f.span.end, input.timeline_start() + *window.until_ns));
  }
  f.duration = f.span.end - f.span.start;
  f.windowed = window.since_ns || window.until_ns;
  for (const TraceFileInfo& file : input.files()) {
    f.truncated = f.truncated || file.diagnostics.truncated;
    f.chunks_bad += file.diagnostics.chunks_bad;
  }
  f.rows = probe_rows(catalog, filter, whole.stats);
  f.processes = whole.stats.processes();
  f.activity = probe_activity(input, filter);
  f.disagreements = disagreements(input, filter, whole);
  f.dropped = drops_by_cause(input);
  f.first_site.assign(catalog.probes().size(), nullptr);
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const SiteInfo& site = catalog.site(s);
    if (f.first_site[site.probe] == nullptr) f.first_site[site.probe] = &site;
  }
  f.by_host = by_host;
  f.hosts = std::move(hosts);
  return f;
}

namespace {

// The sorted distinct host names.
std::vector<std::string> sorted_hosts(const TraceInput& input) {
  std::vector<std::string> hosts;
  for (const TraceFileInfo& f : input.files()) hosts.push_back(f.metadata.hostname);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

// Each file's index among the sorted host names.
std::vector<uint32_t> host_of_each_file(const TraceInput& input, const std::vector<std::string>& hosts) {
  std::vector<uint32_t> out;
  for (const TraceFileInfo& f : input.files()) {
    out.push_back(static_cast<uint32_t>(std::lower_bound(hosts.begin(), hosts.end(), f.metadata.hostname) -
                                        hosts.begin()));
  }
  return out;
}

}  // namespace

SummaryReading::SummaryReading(const ReportOptions& options, const TraceInput& input,
                               const EventFilter& filter)
    : options_(options),
      input_(input),
      filter_(filter),
      by_host_(options.by && options.by->kind == KeySpec::Kind::host),
      hosts_(sorted_hosts(input)),
      // --by host: events per host (sorted names) and probe.
      host_of_file_(by_host_ ? host_of_each_file(input, hosts_) : std::vector<uint32_t>{}),
      context_{input.catalog(), filter, host_of_file_, hosts_.size()},
      files_(input.files().size()) {}

Summary SummaryReading::finish(SummaryPass whole, std::vector<std::string>* warnings) {
  SummaryFacts facts = summarize(input_, filter_, options_.filter, whole, by_host_, hosts_);
  for (const std::string& w : facts.disagreements) warnings->push_back(w);
  return Summary{std::move(whole), std::move(facts)};
}

Result<Summary> read_summary(const ReportOptions& options, TraceInput& input, std::vector<std::string>* warnings) {
  // Counts only: no argument is decoded.
  Result<EventPass> pass = EventPass::open(input, options.filter, {.reads_arguments = false, .jobs = options.jobs});
  if (!pass) return pass.error();
  SummaryReading reading(options, input, pass->filter());
  SummaryPass whole = pass->fold<SummaryPass>(
      [&](const Segment& s) { return reading.make(s); },
      [](SummaryPass& earlier, SummaryPass& later) { return earlier.merge(later); });
  for (const std::string& w : pass->read_problems()) warnings->push_back(w);
  Summary summary = reading.finish(std::move(whole), warnings);
  summary.facts.completeness = pass->completeness();
  return summary;
}

}  // namespace usdt::report
