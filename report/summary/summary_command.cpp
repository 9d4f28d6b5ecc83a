// usdt-report summary: what the trace holds, counted from the records read;
// and, from the files' own summaries, the samples the recorder dropped
// itself by cause (malformed records, foreign processes, ...), which are in
// no chunk: text prints the non-zero ones on one line, JSON always has
// "dropped":{cause:count} ({} when none, or for 1.0 files). JSON lists each
// probe's arguments ("args":[{"name":"arg0","type":"int32"}]) as its first
// site describes them.
//
// A probe attached during the recording (format 1.4: a library dlopen()ed
// after the start) has no events before it was attached, called or not: text
// says when under its count line, JSON in "active_since_ns" (the timeline's
// clock, as "start_ns"); when only some of its sites were attached late,
// "late_sites" and "late_sites_since_ns" (the earliest of them). The rate of
// a probe whose sites were all attached late counts from then.
#include <algorithm>
#include <optional>
#include <string>

#include "report/commands.h"
#include "report/stats/duration.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/input/segments.h"
#include "report/summary/summary_stats.h"

namespace usdt::report {

namespace {

struct Span {
  uint64_t start = 0;
  uint64_t end = 0;
  bool end_from_summary = true;  // every file ended cleanly
};

// The recording's span: from the earliest start to the latest clean end, or
// to the last record read when a file has no summary (cut short).
Span recording_span(const TraceInput& input, uint64_t last_record_time, bool any_record) {
  Span span;
  span.start = input.timeline_start();
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

std::string rate_text(uint64_t count, uint64_t duration_ns) {
  return decimal_ratio(static_cast<unsigned __int128>(count) * 1000000000u, duration_ns);
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// The recorders' own drops by cause (TraceSummary::dropped), summed over the
// files in the order the causes first appear; causes counted 0 are left out.
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

struct ProbeRow {
  uint32_t probe;
  uint64_t count;
  uint64_t lost;
};

// Of a probe's selected sites: how many, how many were attached during the
// recording, and when the first of those was (timeline time).
struct ProbeActivity {
  uint32_t sites = 0;
  uint32_t late_sites = 0;
  uint64_t late_since = 0;

  bool all_late() const { return late_sites > 0 && late_sites == sites; }
};

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

// "(attached at +2.314000000 s, 10:00:02.314 UTC: no events before)" for a
// probe all of whose sites were attached during the recording; for some of
// them, "(1 of its 2 sites attached at +2.314000000 s: no events of that site
// before)"; empty for a probe watched from the start.
// A probe whose sites were all attached during the recording can have fired
// only from then on: its rate counts from then, not from the start.
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

// What the records of the input (or of one segment of it) add up to.
struct SummaryPass {
  // What every pass reads the records with.
  struct Context {
    const ProbeCatalog& catalog;
    const EventFilter& filter;
    const std::vector<uint32_t>& domains;
    const std::vector<uint32_t>& host_of_file;  // empty without --by host
    size_t probe_count;
  };

  SummaryPass(const Context& c, size_t files, size_t hosts)
      : stats(c.catalog, files),
        lost_records_per_file(files, 0),
        host_probe_events(c.host_of_file.empty() ? 0 : hosts * c.probe_count, 0) {}

  // in_segment: process records are kept for the merge rather than applied
  // (a fork takes its parent's name, which an earlier segment may give).
  void read(const Context& c, TraceInput& input, bool in_segment) {
    auto on_event = [&](ProbeCatalog::FileSites sites, uint32_t file, uint32_t domain,
                        const format::Event& e, uint64_t time) {
      const uint32_t site = sites.at(e.site_id);
      if (site == ProbeCatalog::kUnknownSite) {
        if (c.filter.selects_every_site() && c.filter.in_time_window(time)) {
          stats.on_event(site, file, domain, e, time);
        }
        return;
      }
      if (c.filter.accepts(site, e, time)) {
        stats.on_event(site, file, domain, e, time);
        if (!c.host_of_file.empty()) {
          ++host_probe_events[c.host_of_file[file] * c.probe_count + c.catalog.site(site).probe];
        }
      }
    };
    Record r;
    while (input.next(r)) {
      any_record = true;
      last_record_time = std::max(last_record_time, r.time);
      switch (r.kind) {
        case format::RecordKind::event: {
          ProbeCatalog::FileSites sites = c.catalog.sites_of(r.file);
          uint32_t domain = c.domains[r.file];
          on_event(sites, r.file, domain, *r.event, r.time);
          // The events of a run that follow, all of r.file's, in one loop
          // with its site table and domain at hand (as latency's).
          const format::Event* run = nullptr;
          uint32_t file = 0;
          uint32_t k = input.take_rest_of_run(&run, &file);
          if (k == 0) break;
          if (file != r.file) {  // (a run goes on in the record's own batch)
            sites = c.catalog.sites_of(file);
            domain = c.domains[file];
          }
          for (; k != 0; --k, ++run) on_event(sites, file, domain, *run, run->time_ns);
          last_record_time = std::max(last_record_time, (run - 1)->time_ns);
          break;
        }
        case format::RecordKind::process:
          if (in_segment) {
            process_records.emplace_back(c.domains[r.file], *r.process);
          } else {
            stats.names().on_process(c.domains[r.file], *r.process);
          }
          break;
        case format::RecordKind::lost: {
          lost_records_per_file[r.file] += r.lost->count;
          uint32_t site = r.lost->site_id == format::kNoSite
                              ? ProbeCatalog::kUnknownSite
                              : c.catalog.global_site(r.file, r.lost->site_id);
          bool selected = site == ProbeCatalog::kUnknownSite || c.filter.site_selected(site);
          if (selected && c.filter.in_time_window(r.time)) stats.on_lost(site, *r.lost);
          break;
        }
      }
    }
  }

  // Adds later, the pass of the records that follow these.
  void merge(SummaryPass& later) {
    stats.merge(later.stats);
    for (size_t f = 0; f < lost_records_per_file.size(); ++f)
      lost_records_per_file[f] += later.lost_records_per_file[f];
    for (size_t i = 0; i < host_probe_events.size(); ++i)
      host_probe_events[i] += later.host_probe_events[i];
    if (later.any_record) {
      any_record = true;
      last_record_time = std::max(last_record_time, later.last_record_time);
    }
    for (const auto& [domain, p] : later.process_records) stats.names().on_process(domain, p);
  }

  SummaryStats stats;
  std::vector<uint64_t> lost_records_per_file;
  std::vector<uint64_t> host_probe_events;
  uint64_t last_record_time = 0;
  bool any_record = false;
  std::vector<std::pair<uint32_t, format::ProcessEvent>> process_records;  // in_segment
};

}  // namespace

int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io) {
  // Counts only: no argument is decoded (a fifth of the reading).
  Result<EventFilter> filter = make_filter(options, input, /*reads_arguments=*/false);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  const ProbeCatalog& catalog = input.catalog();
  std::vector<uint32_t> domains = file_domains(input);

  // --by host: events per host (sorted names) and probe.
  const bool by_host = options.by && options.by->kind == KeySpec::Kind::host;
  std::vector<std::string> hosts;
  for (const TraceFileInfo& f : input.files()) hosts.push_back(f.metadata.hostname);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::vector<uint32_t> host_of_file;
  for (const TraceFileInfo& f : input.files()) {
    if (!by_host) break;
    host_of_file.push_back(static_cast<uint32_t>(
        std::lower_bound(hosts.begin(), hosts.end(), f.metadata.hostname) - hosts.begin()));
  }
  const size_t probe_count = catalog.probes().size();
  const SummaryPass::Context context{catalog, *filter, domains, host_of_file, probe_count};
  const size_t files = input.files().size();

  // Split by time on several threads when the input can be cut; the first
  // segment's pass takes the others in time order.
  std::optional<SummaryPass> whole = read_in_segments<SummaryPass>(
      input, report_threads(options.jobs),
      [&](size_t k, TraceInput& in, const std::atomic<bool>&) {
        SummaryPass p(context, files, hosts.size());
        p.read(context, in, k > 0);
        return p;
      },
      [](SummaryPass& earlier, SummaryPass& later) {
        earlier.merge(later);
        return true;
      });
  if (!whole) {
    whole.emplace(context, files, hosts.size());
    whole->read(context, input, false);
  }
  SummaryStats& stats = whole->stats;
  const std::vector<uint64_t>& lost_records_per_file = whole->lost_records_per_file;
  const std::vector<uint64_t>& host_probe_events = whole->host_probe_events;
  const uint64_t last_record_time = whole->last_record_time;
  const bool any_record = whole->any_record;
  report_read_problems(input, io.err);

  Span span = recording_span(input, last_record_time, any_record);
  // With --since/--until the span (and so the rates) is the window's part
  // of the recording.
  if (options.filter.since_ns) span.start = std::min(span.end, span.start + *options.filter.since_ns);
  if (options.filter.until_ns) span.end = std::max(span.start, std::min(span.end, input.timeline_start() + *options.filter.until_ns));
  uint64_t duration = span.end - span.start;
  bool truncated = false;
  uint64_t chunks_bad = 0;
  for (const TraceFileInfo& f : input.files()) {
    truncated = truncated || f.diagnostics.truncated;
    chunks_bad += f.diagnostics.chunks_bad;
  }

  // Probes: every selected probe, most events first.
  std::vector<uint8_t> probe_selected(catalog.probes().size(), 0);
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    if (filter->site_selected(s)) probe_selected[catalog.site(s).probe] = 1;
  }
  std::vector<ProbeRow> rows;
  for (uint32_t p = 0; p < catalog.probes().size(); ++p) {
    if (probe_selected[p]) rows.push_back({p, stats.events_per_probe()[p], stats.lost_per_probe()[p]});
  }
  std::sort(rows.begin(), rows.end(), [&](const ProbeRow& a, const ProbeRow& b) {
    if (a.count != b.count) return a.count > b.count;
    return catalog.probes()[a.probe].shown_name < catalog.probes()[b.probe].shown_name;
  });
  std::vector<ProcessCount> processes = stats.processes();
  const std::vector<ProbeActivity> activity = probe_activity(input, *filter);

  // The file's own summary against what was read (only meaningful unfiltered).
  std::vector<std::string> disagreements;
  if (!filter->restricts_anything()) {
    for (uint32_t f = 0; f < input.files().size(); ++f) {
      const TraceFileInfo& info = input.files()[f];
      if (!info.summary) continue;
      if (info.summary->events != stats.events_of_file(f)) {
        disagreements.push_back("'" + info.path + "': its summary counts " +
                                std::to_string(info.summary->events) + " events, " +
                                std::to_string(stats.events_of_file(f)) + " could be read");
      }
      if (info.summary->lost != lost_records_per_file[f]) {
        disagreements.push_back("'" + info.path + "': its summary counts " +
                                std::to_string(info.summary->lost) + " lost events, the lost records read count " +
                                std::to_string(lost_records_per_file[f]));
      }
    }
  }
  for (const std::string& d : disagreements) print_warning(io.err, d);
  if (stats.lost() > 0) {
    print_warning(io.err, std::to_string(stats.lost()) +
                              " events were lost by the kernel (ring buffer full): the counts below miss them");
  }

  auto host_of = [&](uint32_t domain) { return input.files()[domain].metadata.hostname; };
  const std::vector<std::pair<std::string, uint64_t>> dropped = drops_by_cause(input);
  // A probe's arguments as its first site describes them.
  std::vector<const SiteInfo*> first_site(catalog.probes().size(), nullptr);
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const SiteInfo& site = catalog.site(s);
    if (first_site[site.probe] == nullptr) first_site[site.probe] = &site;
  }

  if (options.format == "json") {
    std::string j;
    JsonWriter w(j);
    w.begin_object();
    w.key("events").uint(stats.events());
    w.key("lost").uint(stats.lost());
    w.key("truncated").boolean(truncated);
    w.key("chunks_bad").uint(chunks_bad);
    w.key("start_ns").uint(span.start);
    w.key("end_ns").uint(span.end);
    w.key("duration_ns").uint(duration);
    w.key("start_realtime_ns").uint(realtime_of(input, span.start));
    w.key("first_event_ns").uint_or_null(stats.events() > 0, stats.first_time());
    w.key("last_event_ns").uint_or_null(stats.events() > 0, stats.last_time());
    w.key("unknown_site_events").uint(stats.unknown_site_events());
    w.key("dropped").begin_object();
    for (const auto& [cause, count] : dropped) w.key(cause).uint(count);
    w.end_object();
    w.key("probes").begin_array();
    for (const ProbeRow& row : rows) {
      const ProbeInfo& p = catalog.probes()[row.probe];
      w.begin_object().key("provider").string(p.provider).key("name").string(p.name);
      if (!p.path.empty()) w.key("path").string(p.path);
      w.key("count").uint(row.count).key("lost").uint(row.lost);
      w.key("rate_per_s").number_text(rate_text(row.count, active_duration(span, activity[row.probe])));
      if (const ProbeActivity& a = activity[row.probe]; a.all_late()) {
        w.key("active_since_ns").uint(a.late_since);
      } else if (a.late_sites > 0) {
        w.key("late_sites").uint(a.late_sites).key("late_sites_since_ns").uint(a.late_since);
      }
      w.key("args").begin_array();
      if (const SiteInfo* site = first_site[row.probe]; site != nullptr) {
        for (size_t i = 0; i < site->arg_types.size(); ++i) {
          w.begin_object().key("name").string(site->arg_label(i));
          w.key("type").string(arg_type_name(site->arg_types[i], site->arg_sizes[i])).end_object();
        }
      }
      w.end_array().end_object();
    }
    w.end_array();
    w.key("processes").begin_array();
    for (const ProcessCount& p : processes) {
      w.begin_object().key("pid").uint(p.pid).key("comm");
      if (p.name == ProcessNames::kNoName) {
        w.null();
      } else {
        w.string(stats.names().name(p.name));
      }
      w.key("events").uint(p.events);
      if (input.hosts_differ()) w.key("host").string(host_of(p.domain));
      w.end_object();
    }
    w.end_array();
    if (by_host) {
      w.key("hosts").begin_array();
      for (size_t h = 0; h < hosts.size(); ++h) {
        uint64_t total = 0;
        for (const ProbeRow& row : rows) total += host_probe_events[h * probe_count + row.probe];
        w.begin_object().key("host").string(hosts[h]).key("events").uint(total).key("probes").begin_array();
        for (const ProbeRow& row : rows) {
          const ProbeInfo& p = catalog.probes()[row.probe];
          w.begin_object().key("provider").string(p.provider).key("name").string(p.name);
          w.key("count").uint(host_probe_events[h * probe_count + row.probe]).end_object();
        }
        w.end_array().end_object();
      }
      w.end_array();
    }
    w.key("lost_per_cpu").begin_array();
    for (const auto& [cpu, count] : stats.lost_per_cpu()) {
      w.begin_object().key("cpu").uint(cpu).key("lost").uint(count).end_object();
    }
    w.end_array();
    w.key("files").begin_array();
    for (size_t i = 0; i < input.files().size(); ++i) {
      const TraceFileInfo& f = input.files()[i];
      w.begin_object().key("path").string(f.path).key("hostname").string(f.metadata.hostname);
      w.key("events").uint(stats.events_of_file(static_cast<uint32_t>(i)));
      w.key("summary_events").uint_or_null(f.summary.has_value(), f.summary ? f.summary->events : 0);
      w.key("truncated").boolean(f.diagnostics.truncated);
      w.key("chunks_bad").uint(f.diagnostics.chunks_bad).end_object();
    }
    w.end_array();
    w.end_object();
    j += '\n';
    std::fputs(j.c_str(), io.out);
    return 0;
  }

  std::string t;
  for (const TraceFileInfo& f : input.files()) {
    t += "trace:     " + f.path + " (host " + f.metadata.hostname + ", kernel " +
         f.metadata.kernel_release + ", " + f.metadata.arch + ")\n";
  }
  t += "start:     " + wall_clock_text(realtime_of(input, span.start)) + "\n";
  bool windowed = options.filter.since_ns || options.filter.until_ns;
  t += std::string(windowed ? "window:    " : "duration:  ") + format_seconds(duration) + " s" +
       (span.end_from_summary ? "" : " (to the last record read: the recording's end is unknown)") + "\n";
  t += "events:    " + std::to_string(stats.events());
  if (stats.events() > 0) {
    t += " (first at +" + format_seconds(stats.first_time() - input.timeline_start()) + " s, last at +" +
         format_seconds(stats.last_time() - input.timeline_start()) + " s)";
  }
  t += "\n";
  if (truncated) t += "truncated: yes: events after the cut are missing\n";
  if (chunks_bad > 0) t += "corrupted: " + std::to_string(chunks_bad) + " chunk(s) skipped\n";
  std::string dropped_text;
  for (const auto& [cause, count] : dropped) {
    if (cause == format::kLostProcessRecords) {
      t += "process records lost: " + std::to_string(count) +
           " (comm, fork, exit, mmap: thread names and stacks of that time may be incomplete)\n";
      continue;
    }
    dropped_text += (dropped_text.empty() ? "" : ", ") + std::to_string(count) + " " + cause;
  }
  if (!dropped_text.empty()) t += "dropped by the recorder: " + dropped_text + "\n";
  t += "\n";

  size_t name_width = 24;
  for (const ProbeRow& row : rows) name_width = std::max(name_width, catalog.probes()[row.probe].shown_name.size() + 2);
  t += pad_right("probe", name_width) + pad_left("events", 12) + pad_left("rate/s", 16) + pad_left("lost", 10) + "\n";
  for (const ProbeRow& row : rows) {
    const uint64_t active = active_duration(span, activity[row.probe]);
    t += pad_right(catalog.probes()[row.probe].shown_name, name_width) + pad_left(std::to_string(row.count), 12) +
         pad_left(active ? rate_text(row.count, active) : "-", 16) + pad_left(std::to_string(row.lost), 10) + "\n";
    if (std::string late = activity_text(input, activity[row.probe]); !late.empty()) t += "  " + late + "\n";
  }
  if (stats.unknown_site_events() > 0) {
    t += "(" + std::to_string(stats.unknown_site_events()) + " events name a probe site the file does not list)\n";
  }
  if (by_host) {
    size_t host_width = 16;
    for (const std::string& h : hosts) host_width = std::max(host_width, h.size() + 2);
    t += "\n" + pad_right("host", host_width) + pad_right("probe", name_width) + pad_left("events", 12) + "\n";
    for (size_t h = 0; h < hosts.size(); ++h) {
      for (const ProbeRow& row : rows) {
        t += pad_right(hosts[h], host_width) + pad_right(catalog.probes()[row.probe].full_name, name_width) +
             pad_left(std::to_string(host_probe_events[h * probe_count + row.probe]), 12) + "\n";
      }
    }
  }
  t += "\n";
  t += pad_left("pid", 8) + "  " + (input.hosts_differ() ? pad_right("host", 16) : "") + pad_right("process", 18) +
       pad_left("events", 12) + "\n";
  for (const ProcessCount& p : processes) {
    std::string name = p.name == ProcessNames::kNoName ? "?" : stats.names().name(p.name);
    t += pad_left(std::to_string(p.pid), 8) + "  " + (input.hosts_differ() ? pad_right(host_of(p.domain), 16) : "") +
         pad_right(name, 18) + pad_left(std::to_string(p.events), 12) + "\n";
  }
  if (stats.lost() > 0) {
    t += "\nlost:      " + std::to_string(stats.lost()) + " events (";
    bool first = true;
    for (const auto& [cpu, count] : stats.lost_per_cpu()) {
      if (!first) t += ", ";
      first = false;
      t += "cpu " + std::to_string(cpu) + ": " + std::to_string(count);
    }
    if (stats.lost_unknown_probe() > 0) {
      t += "; " + std::to_string(stats.lost_unknown_probe()) + " of unknown probe";
    }
    t += ")\n";
  }
  std::fputs(t.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
