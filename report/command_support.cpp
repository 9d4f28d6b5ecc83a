#include <ctime>
#include <set>

#include "report/commands.h"

namespace usdt::report {

void print_error(std::FILE* err, const std::string& message) {
  std::fprintf(err, "usdt-report: error: %s\n", message.c_str());
}

void print_warning(std::FILE* err, const std::string& message) {
  std::fprintf(err, "usdt-report: warning: %s\n", message.c_str());
}

std::vector<uint32_t> file_domains(const TraceInput& input) {
  std::vector<uint32_t> out(input.files().size(), 0);
  if (input.hosts_differ()) {
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = i;
  }
  return out;
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

format::ReadFilter file_read_filter(const EventFilter& filter, const TraceInput& input,
                                    uint32_t file) {
  return reader_hint(input, file,
                     filter.read_filter(input.catalog(), file, input.files()[file].shift_ns));
}

Result<EventFilter> make_filter(const ReportOptions& options, TraceInput& input,
                                bool reads_arguments) {
  Result<EventFilter> filter = EventFilter::create(input.catalog(), options.filter, input.timeline_start());
  if (!filter) return filter;
  filter->set_reads_arguments(reads_arguments);
  for (uint32_t f = 0; f < input.files().size(); ++f)
    input.set_read_filter(f, file_read_filter(*filter, input, f));
  return filter;
}

void narrow_read_filter(const EventFilter& filter, const std::vector<uint8_t>& wanted_sites, TraceInput& input) {
  const ProbeCatalog& catalog = input.catalog();
  for (uint32_t f = 0; f < input.files().size(); ++f) {
    format::ReadFilter rf = filter.read_filter(catalog, f, input.files()[f].shift_ns);
    rf.site_ids.clear();
    for (uint32_t s = 0; s < catalog.site_count(); ++s) {
      if (catalog.site(s).file == f && filter.site_selected(s) && s < wanted_sites.size() && wanted_sites[s]) {
        rf.site_ids.push_back(catalog.site(s).site_id);
      }
    }
    // Nothing wanted in this file: an impossible id, since an empty list
    // means "every site" to the reader.
    if (rf.site_ids.empty()) rf.site_ids.push_back(format::kNoSite);
    input.set_read_filter(f, reader_hint(input, f, std::move(rf)));
  }
}

void report_read_problems(const TraceInput& input, std::FILE* err) {
  for (const TraceFileInfo& f : input.files()) {
    const format::ReadDiagnostics& d = f.diagnostics;
    if (d.truncated) {
      std::string where;
      for (const format::ReadProblem& p : d.problems) where = " at offset " + std::to_string(p.offset);
      print_warning(err, "'" + f.path + "' is truncated" + where + ": showing the events before the cut");
    }
    if (d.chunks_bad > 0) {
      std::string first;
      for (const format::ReadProblem& p : d.problems) {
        if (first.empty()) first = " (first at offset " + std::to_string(p.offset) + ": " + p.message + ")";
      }
      print_warning(err, "'" + f.path + "': skipped " + std::to_string(d.chunks_bad) +
                             " corrupted chunk" + (d.chunks_bad == 1 ? "" : "s") + first +
                             "; their events are missing");
    }
    if (d.records_skipped > 0) {
      print_warning(err, "'" + f.path + "': skipped " + std::to_string(d.records_skipped) +
                             " record(s) of unknown kind (written by a newer recorder?)");
    }
  }
}

uint64_t realtime_of(const TraceInput& input, uint64_t time) {
  if (input.files().empty()) return 0;
  const format::TraceMetadata& m = input.files().front().metadata;
  return m.start_realtime_ns + (time - m.start_monotonic_ns);
}

std::string wall_clock_text(uint64_t realtime_ns) {
  std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1000000000ull);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%09llu UTC", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<unsigned long long>(realtime_ns % 1000000000ull));
  return buf;
}

Result<std::vector<uint32_t>> sites_matching(const ProbeCatalog& catalog, const std::string& pattern) {
  std::vector<uint32_t> probes = catalog.probes_matching(pattern);
  if (probes.empty()) return Error(unknown_probe_message(pattern, catalog));
  std::vector<uint32_t> sites;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    for (uint32_t p : probes) {
      if (catalog.site(s).probe == p) sites.push_back(s);
    }
  }
  return sites;
}

int run_command(const ReportOptions& options, TraceInput& input, CommandIo io) {
  switch (options.command) {
    case Command::summary: return run_summary(options, input, io);
    case Command::dump: return run_dump(options, input, io);
    case Command::latency: return run_latency(options, input, io);
    case Command::hist: return run_hist(options, input, io);
    case Command::export_trace: return run_export(options, input, io);
    case Command::stacks: return run_stacks(options, input, io);
  }
  return 1;
}

Status check_arg_name(const ArgRef& arg, const ProbeCatalog& catalog, const std::vector<uint32_t>& sites,
                      const char* option) {
  if (arg.name.empty()) return Status::success();
  std::set<std::string> names;
  for (uint32_t s : sites) {
    const SiteInfo& site = catalog.site(s);
    if (site.arg_named(arg.name) >= 0) return Status::success();
    for (const std::string& n : site.arg_names) {
      if (!n.empty()) names.insert(n);
    }
  }
  std::string msg = std::string(option) + " " + arg.name + ": no selected probe has an argument of that name";
  if (names.empty()) return Error(msg + "; their arguments have no names: use argN");
  msg += "; names there:";
  for (const std::string& n : names) msg += " " + n;
  return Error(msg);
}

}  // namespace usdt::report
