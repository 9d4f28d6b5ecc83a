#include <optional>
#include <string>

#include "report/output/summary_json.h"

#include "report/output/json_writer.h"
#include "report/output/summary_series.h"

namespace usdt::report {

namespace {

// What the summary holds for the whole recording: counts, times, drops.
void write_totals(JsonWriter& w, const SummaryFacts& facts, const TraceInput& input, const SummaryStats& stats) {
  w.key("events").uint(stats.events());
  w.key("lost").uint(stats.lost());
  w.key("truncated").boolean(facts.truncated);
  w.key("chunks_bad").uint(facts.chunks_bad);
  // After it, events of a damaged file may be missing (on the clock of
  // start_ns); null when nothing is damaged or the time is unknown.
  std::optional<uint64_t> incomplete = earliest_incomplete(input, facts.completeness);
  w.key("incomplete_after_ns").uint_or_null(incomplete.has_value(), incomplete.value_or(0));
  w.key("start_ns").uint(facts.span.start);
  w.key("end_ns").uint(facts.span.end);
  w.key("duration_ns").uint(facts.duration);
  w.key("start_realtime_ns").uint(realtime_of(input, facts.span.start));
  w.key("first_event_ns").uint_or_null(stats.events() > 0, stats.first_time());
  w.key("last_event_ns").uint_or_null(stats.events() > 0, stats.last_time());
  w.key("unknown_site_events").uint(stats.unknown_site_events());
  w.key("dropped").begin_object();
  for (const auto& [cause, count] : facts.dropped) w.key(cause).uint(count);
  w.end_object();
}

// One probe: its counts, rate, when it was attached, its arguments.
void write_probe(JsonWriter& w, const SummaryFacts& facts, const ProbeCatalog& catalog, const ProbeRow& row) {
  const ProbeInfo& p = catalog.probes()[row.probe];
  const ProbeActivity& a = facts.activity[row.probe];
  w.begin_object().key("provider").string(p.provider).key("name").string(p.name);
  if (!p.path.empty()) w.key("path").string(p.path);
  w.key("count").uint(row.count).key("lost").uint(row.lost);
  w.key("rate_per_s").number_text(rate_text(row.count, active_duration(facts.span, a)));
  if (a.all_late()) {
    w.key("active_since_ns").uint(a.late_since);
  } else if (a.late_sites > 0) {
    w.key("late_sites").uint(a.late_sites).key("late_sites_since_ns").uint(a.late_since);
  }
  w.key("args").begin_array();
  if (const SiteInfo* site = facts.first_site[row.probe]; site != nullptr) {
    for (size_t i = 0; i < site->arg_types.size(); ++i) {
      w.begin_object().key("name").string(site->arg_label(i));
      w.key("type").string(arg_type_name(site->arg_types[i], site->arg_sizes[i])).end_object();
    }
  }
  w.end_array().end_object();
}

void write_processes(JsonWriter& w, const SummaryFacts& facts, const TraceInput& input, const SummaryStats& stats) {
  w.key("processes").begin_array();
  for (const ProcessCount& p : facts.processes) {
    w.begin_object().key("pid").uint(p.pid).key("comm");
    if (p.name == ProcessNames::kNoName) {
      w.null();
    } else {
      w.string(stats.names().name(p.name));
    }
    w.key("events").uint(p.events);
    if (p.in_namespace) {
      w.key("ns_pid").uint_or_null(p.ns.known(), p.ns.ns_pid);
      w.key("pid_namespace").uint_or_null(p.ns.pid_namespace != 0, p.ns.pid_namespace);
    }
    if (input.hosts_differ()) w.key("host").string(input.files()[p.domain].metadata.hostname);
    w.end_object();
  }
  w.end_array();
}

// --by host: each host's events per probe.
void write_hosts(JsonWriter& w, const SummaryFacts& facts, const ProbeCatalog& catalog, const SummaryPass& whole) {
  const size_t probe_count = catalog.probes().size();
  w.key("hosts").begin_array();
  for (size_t h = 0; h < facts.hosts.size(); ++h) {
    uint64_t total = 0;
    for (const ProbeRow& row : facts.rows) total += whole.host_probe_events[h * probe_count + row.probe];
    w.begin_object().key("host").string(facts.hosts[h]).key("events").uint(total).key("probes").begin_array();
    for (const ProbeRow& row : facts.rows) {
      const ProbeInfo& p = catalog.probes()[row.probe];
      w.begin_object().key("provider").string(p.provider).key("name").string(p.name);
      w.key("count").uint(whole.host_probe_events[h * probe_count + row.probe]).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
}

// A damaged file's completeness: per CPU, the time (on the clock of
// start_ns) up to which its events are complete, null when unknown.
void write_complete_until(JsonWriter& w, const TraceInput& input, const FileCompleteness& c) {
  if (!c.completeness) return;
  const int64_t shift = input.files()[c.file].shift_ns;
  w.key("complete_until").begin_array();
  for (const format::CpuCompleteness& cpu : c.completeness->cpus) {
    w.begin_object().key("cpu").uint(cpu.cpu).key("ns");
    w.uint_or_null(
        cpu.complete_until_ns.has_value(),
        static_cast<uint64_t>(static_cast<int64_t>(cpu.complete_until_ns.value_or(0)) + shift));
    w.end_object();
  }
  w.end_array();
}

void write_files(JsonWriter& w, const SummaryFacts& facts, const TraceInput& input,
                 const SummaryStats& stats) {
  w.key("files").begin_array();
  for (size_t i = 0; i < input.files().size(); ++i) {
    const TraceFileInfo& f = input.files()[i];
    w.begin_object().key("path").string(f.path).key("hostname").string(f.metadata.hostname);
    w.key("events").uint(stats.events_of_file(static_cast<uint32_t>(i)));
    w.key("summary_events").uint_or_null(f.summary.has_value(), f.summary ? f.summary->events : 0);
    w.key("truncated").boolean(f.diagnostics.truncated);
    w.key("chunks_bad").uint(f.diagnostics.chunks_bad);
    for (const FileCompleteness& c : facts.completeness) {
      if (c.file == i) write_complete_until(w, input, c);
    }
    write_series_json(w, input, static_cast<uint32_t>(i));
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string summary_json(const SummaryFacts& facts, const TraceInput& input, const SummaryPass& whole) {
  const SummaryStats& stats = whole.stats;
  std::string j;
  JsonWriter w(j);
  w.begin_object();
  write_totals(w, facts, input, stats);
  w.key("probes").begin_array();
  for (const ProbeRow& row : facts.rows) write_probe(w, facts, input.catalog(), row);
  w.end_array();
  write_processes(w, facts, input, stats);
  if (facts.by_host) write_hosts(w, facts, input.catalog(), whole);
  w.key("lost_per_cpu").begin_array();
  for (const auto& [cpu, count] : stats.lost_per_cpu()) {
    w.begin_object().key("cpu").uint(cpu).key("lost").uint(count).end_object();
  }
  w.end_array();
  write_files(w, facts, input, stats);
  w.end_object();
  j += '\n';
  return j;
}

}  // namespace usdt::report
