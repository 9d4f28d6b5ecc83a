#include "record/session/end_report.h"
#include "record/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace usdt::record {
namespace {

// The totals: events, losses, bytes, what the file holds, stacks, drops.
void print_totals(const EndReport& r, std::ostream& out) {
  out << "usdt-record: " << r.events << " events recorded, " << r.lost << " lost, " << r.bytes
      << " bytes written " << (r.where.empty() ? "to " + r.output : r.where) << '\n';
  for (const std::string& line : r.output_lines) out << "usdt-record: " << line << '\n';
  // One file, or the several a series or a flight recorder wrote.
  const std::string files =
      r.where.empty() || r.where == "to " + r.output ? r.output : std::string("the files written");
  if (r.write_failed && r.events_in_file < r.events) {
    out << "usdt-record: " << files << " hold" << (files == r.output ? "s " : " ") << r.events_in_file << " of the " << r.events
        << " events: the other " << r.events - r.events_in_file
        << " were not written (the chunk the error met, and all that came after it)\n";
  } else if (r.write_failed) {
    out << "usdt-record: " << files << " hold" << (files == r.output ? "s" : "") << " all " << r.events
        << " events, but not its end (summary and index)\n";
  }
  if (r.lost != 0) {
    std::string causes;
    for (const auto& [cause, count] : r.lost_by_cause) {
      if (count == 0) continue;
      causes += (causes.empty() ? "" : ", ") + std::to_string(count) + " because " + cause;
    }
    if (!causes.empty()) {
      out << "usdt-record: lost: " << causes << "\n"
          << "hint: a larger --buffer-pages gives the rings more room\n";
    }
  }
  if (r.call_stacks) {
    out << "usdt-record: " << r.stacks << " of " << r.events << " events carry a call stack, "
        << r.truncated_stacks << " truncated\n";
  }
  std::string dropped;
  uint64_t lost_process_records = 0;
  for (const auto& [cause, count] : r.dropped) {
    if (count == 0) continue;
    if (cause == format::kLostProcessRecords) {
      lost_process_records = count;
      continue;
    }
    if (!dropped.empty()) dropped += ", ";
    dropped += std::to_string(count) + " " + cause;
  }
  if (!dropped.empty()) {
    out << "usdt-record: samples the recorder dropped (not in the trace): " << dropped << '\n';
  }
  if (lost_process_records > 0) {
    warning(out) << "the kernel dropped " << lost_process_records
        << " process records (comm, fork, exit, mmap; the side-band ring was full): thread "
           "names"
        << (r.call_stacks ? " and the stacks" : "") << " of that time may be incomplete\n";
  }
}

// One line per probe: its hits, rate and losses.
void print_probes(const EndReport& r, std::ostream& out) {
  struct Probe {
    std::string label;
    uint64_t hits = 0;
    uint64_t lost = 0;
    bool tracepoint = false;
    // The earliest attach of its sites when all came during the recording.
    uint64_t late_since = 0;
    bool all_late = true;
  };
  std::vector<Probe> probes;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < r.sites.size(); ++i) {
    const format::ProbeSite& site = r.sites[i];
    std::string label = site.provider + ":" + site.name;
    if (site.kind == format::ProbeKind::tracepoint) {
      label = "tracepoint " + label;
    } else if (site.kind != format::ProbeKind::usdt) {
      // Function probes name their file: two files may have a function of one name.
      size_t slash = site.path.rfind('/');
      label += " (" + (slash == std::string::npos ? site.path : site.path.substr(slash + 1)) + ")";
    }
    auto [it, inserted] = index.emplace(label, probes.size());
    if (inserted) probes.push_back({label, 0, 0, site.kind == format::ProbeKind::tracepoint});
    Probe& p = probes[it->second];
    if (i < r.events_per_site.size()) p.hits += r.events_per_site[i];
    if (i < r.lost_per_site.size()) p.lost += r.lost_per_site[i];
    if (site.active_since_ns == 0) {
      p.all_late = false;
    } else if (p.late_since == 0 || site.active_since_ns < p.late_since) {
      p.late_since = site.active_since_ns;
    }
  }
  // A tracepoint wildcard (tracepoint:sched:*) selects dozens of events,
  // most of which never fire: beyond a few, the silent ones are counted in
  // one line rather than listed. A user probe's 0 is always shown: that it
  // never fired is what the user wants to know.
  constexpr size_t kListedSilentTracepoints = 5;
  auto silent_tracepoint = [](const Probe& p) {
    return p.tracepoint && p.hits == 0 && p.lost == 0;
  };
  size_t silent =
      static_cast<size_t>(std::count_if(probes.begin(), probes.end(), silent_tracepoint));
  if (silent > kListedSilentTracepoints) {
    probes.erase(std::remove_if(probes.begin(), probes.end(), silent_tracepoint), probes.end());
  } else {
    silent = 0;
  }
  size_t width = 0;
  for (const Probe& p : probes) width = std::max(width, p.label.size());
  for (const Probe& p : probes) {
    char rate[64];
    double seconds = r.seconds;
    const bool late = p.all_late && p.late_since != 0 && r.end_ns > p.late_since;
    if (late) seconds = static_cast<double>(r.end_ns - p.late_since) / 1e9;
    double per_second = seconds > 0 ? static_cast<double>(p.hits) / seconds : 0;
    std::snprintf(rate, sizeof rate, "%.1f", per_second);
    out << "usdt-record:   " << p.label << std::string(width - p.label.size() + 2, ' ') << p.hits
        << " hits  " << rate << "/s";
    if (p.lost != 0) out << "  (" << p.lost << " lost)";
    if (late && p.late_since > r.start_ns) {
      char at[64];
      std::snprintf(at, sizeof at, "%.3f", static_cast<double>(p.late_since - r.start_ns) / 1e9);
      out << "  (attached at +" << at << " s)";
    }
    out << '\n';
  }
  if (silent != 0) out << "usdt-record:   and " << silent << " more tracepoints with 0 hits\n";
  uint64_t attributed = 0;
  for (const Probe& p : probes) attributed += p.lost;
  if (r.lost > attributed) {
    out << "usdt-record:   " << r.lost - attributed
        << " lost events of no known probe: the kernel counts a full ring buffer's losses per "
           "CPU, not per probe\n";
  }
}

// "12.3 ms".
std::string milliseconds(uint64_t ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// When the probes were armed, and what that means for hits before.
void print_armed(const EndReport& r, std::ostream& out) {
  if (r.armed_ns == 0 || r.armed_ns < r.file_start_ns) return;
  out << "usdt-record: probes armed " << milliseconds(r.armed_ns - r.file_start_ns)
      << " after the start";
  if (r.attach_wait_ns != 0) {
    out << " (" << milliseconds(r.attach_wait_ns)
        << " of it waiting for another recording's clean-up)";
  }
  if (r.command) {
    out << ", before the command started\n";
  } else {
    out << ": hits before that were neither recorded nor counted\n";
  }
}

}  // namespace

void print_end_report(const EndReport& r, std::ostream& out) {
  print_totals(r, out);
  print_armed(r, out);
  print_probes(r, out);
}

}  // namespace usdt::record
