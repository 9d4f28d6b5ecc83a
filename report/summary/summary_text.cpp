// summary's text output.
#include <algorithm>
#include <string>

#include "report/stats/duration.h"
#include "report/output/summary_series.h"
#include "report/summary/summary_text.h"

namespace usdt::report {

namespace {

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// Whether files are truncated or corrupted, and up to when each one's
// events are complete, per CPU: what a reader gets of a damaged file is not
// a prefix in time (formats/completeness.h).
std::string damage_text(const SummaryFacts& facts, const TraceInput& input) {
  std::string t;
  for (const FileCompleteness& c : facts.completeness) {
    const TraceFileInfo& f = input.files()[c.file];
    const std::string which = input.files().size() > 1 ? f.path + ": " : "";
    if (f.diagnostics.truncated) t += "truncated: yes: " + which + incomplete_text(input, c) + "\n";
    if (f.diagnostics.chunks_bad > 0 || !f.diagnostics.skipped_at.empty()) {
      t += "corrupted: " + which + std::to_string(f.diagnostics.chunks_bad) + " chunk(s) skipped" +
           (f.diagnostics.truncated ? "" : ": " + incomplete_text(input, c)) + "\n";
    }
    if (std::string cpus = cpus_text(input, c); !cpus.empty())
      t += "complete:  " + which + cpus + "\n";
  }
  return t;
}

// The files, the span, the event count, what is missing and dropped.
std::string head_text(const SummaryFacts& facts, const TraceInput& input, const SummaryStats& stats) {
  std::string t;
  for (uint32_t i = 0; i < input.files().size(); ++i) {
    const TraceFileInfo& f = input.files()[i];
    t += "trace:     " + f.path + " (host " + f.metadata.hostname + ", kernel " + f.metadata.kernel_release +
         ", " + f.metadata.arch + ")\n";
    t += series_text(input, i);
  }
  t += "start:     " + wall_clock_text(realtime_of(input, facts.span.start)) + "\n";
  t += std::string(facts.windowed ? "window:    " : "duration:  ") + format_seconds(facts.duration) + " s" +
       (facts.span.end_from_summary ? "" : " (to the last record read: the recording's end is unknown)") + "\n";
  t += "events:    " + std::to_string(stats.events());
  if (stats.events() > 0) {
    t += " (first at +" + format_seconds(stats.first_time() - input.timeline_start()) + " s, last at +" +
         format_seconds(stats.last_time() - input.timeline_start()) + " s)";
  }
  t += "\n";
  t += damage_text(facts, input);
  std::string dropped_text;
  for (const auto& [cause, count] : facts.dropped) {
    if (cause == format::kLostProcessRecords) {
      t += "process records lost: " + std::to_string(count) +
           " (comm, fork, exit, mmap: thread names and stacks of that time may be incomplete)\n";
      continue;
    }
    dropped_text += (dropped_text.empty() ? "" : ", ") + std::to_string(count) + " " + cause;
  }
  if (!dropped_text.empty()) t += "dropped by the recorder: " + dropped_text + "\n";
  return t;
}

// The probes' table, most events first, and with --by host each host's.
std::string probes_text(const SummaryFacts& facts, const TraceInput& input, const SummaryPass& whole,
                        size_t name_width) {
  const ProbeCatalog& catalog = input.catalog();
  std::string t = pad_right("probe", name_width) + pad_left("events", 12) + pad_left("rate/s", 16) +
                  pad_left("lost", 10) + "\n";
  for (const ProbeRow& row : facts.rows) {
    const uint64_t active = active_duration(facts.span, facts.activity[row.probe]);
    t += pad_right(catalog.probes()[row.probe].shown_name, name_width) + pad_left(std::to_string(row.count), 12) +
         pad_left(active ? rate_text(row.count, active) : "-", 16) + pad_left(std::to_string(row.lost), 10) + "\n";
    if (std::string late = activity_text(input, facts.activity[row.probe]); !late.empty()) t += "  " + late + "\n";
  }
  if (whole.stats.unknown_site_events() > 0) {
    t += "(" + std::to_string(whole.stats.unknown_site_events()) +
         " events name a probe site the file does not list)\n";
  }
  if (!facts.by_host) return t;
  const size_t probe_count = catalog.probes().size();
  size_t host_width = 16;
  for (const std::string& h : facts.hosts) host_width = std::max(host_width, h.size() + 2);
  t += "\n" + pad_right("host", host_width) + pad_right("probe", name_width) + pad_left("events", 12) + "\n";
  for (size_t h = 0; h < facts.hosts.size(); ++h) {
    for (const ProbeRow& row : facts.rows) {
      t += pad_right(facts.hosts[h], host_width) + pad_right(catalog.probes()[row.probe].full_name, name_width) +
           pad_left(std::to_string(whole.host_probe_events[h * probe_count + row.probe]), 12) + "\n";
    }
  }
  return t;
}

// The processes' table, and the lost events per CPU.
std::string processes_text(const SummaryFacts& facts, const TraceInput& input, const SummaryStats& stats) {
  const bool hosts = input.hosts_differ();
  // A process in a container's PID namespace also has its pid there.
  const bool namespaces = std::any_of(facts.processes.begin(), facts.processes.end(),
                                      [](const ProcessCount& p) { return p.in_namespace; });
  std::string t = pad_left("pid", 8) + "  " + (namespaces ? pad_left("ns pid", 8) + "  " : "") +
                  (hosts ? pad_right("host", 16) : "") + pad_right("process", 18) +
                  pad_left("events", 12) + "\n";
  for (const ProcessCount& p : facts.processes) {
    std::string name = p.name == ProcessNames::kNoName ? "?" : stats.names().name(p.name);
    std::string ns_pid = !p.in_namespace ? "" : p.ns.known() ? std::to_string(p.ns.ns_pid) : "?";
    t += pad_left(std::to_string(p.pid), 8) + "  " +
         (namespaces ? pad_left(ns_pid, 8) + "  " : "") +
         (hosts ? pad_right(input.files()[p.domain].metadata.hostname, 16) : "") +
         pad_right(name, 18) + pad_left(std::to_string(p.events), 12) + "\n";
  }
  if (namespaces) {
    t += "(ns pid: the pid in the process's own PID namespace, a container's; ? when it ended "
         "before "
         "the recorder could read it)\n";
  }
  if (stats.lost() == 0) return t;
  t += "\nlost:      " + std::to_string(stats.lost()) + " events (";
  bool first = true;
  for (const auto& [cpu, count] : stats.lost_per_cpu()) {
    if (!first) t += ", ";
    first = false;
    t += "cpu " + std::to_string(cpu) + ": " + std::to_string(count);
  }
  if (stats.lost_unknown_probe() > 0) t += "; " + std::to_string(stats.lost_unknown_probe()) + " of unknown probe";
  t += ")\n";
  return t;
}

}  // namespace

std::string summary_text(const SummaryFacts& facts, const TraceInput& input, const SummaryPass& whole) {
  size_t name_width = 24;
  for (const ProbeRow& row : facts.rows) {
    name_width = std::max(name_width, input.catalog().probes()[row.probe].shown_name.size() + 2);
  }
  return head_text(facts, input, whole.stats) + "\n" + probes_text(facts, input, whole, name_width) + "\n" +
         processes_text(facts, input, whole.stats);
}

}  // namespace usdt::report
