// usdt-report dump: one line per event in time order, as text, JSONL or CSV.
// The hot loop formats with std::to_chars into a large buffer; the per-site
// parts of a line (names, quoting) are built once per site, not per event.
//
// Times: text shows seconds since the timeline start ("12.000345678");
// jsonl and csv give time_ns, the event's CLOCK_MONOTONIC value exactly as
// recorded (comparable with the recording host's clock, not shifted).
#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "report/arg_format.h"
#include "report/commands.h"
#include "report/json_text.h"
#include "report/output_buffer.h"
#include "report/process_names.h"

namespace usdt::report {

namespace {

enum class DumpFormat { text, jsonl, csv };

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

constexpr std::string_view kArgLabels[format::kMaxArgs] = {
    " arg0=", " arg1=", " arg2=", " arg3=", " arg4=", " arg5=",
    " arg6=", " arg7=", " arg8=", " arg9=", " arg10=", " arg11="};

// What a line needs about a site, precomputed.
struct SitePrefix {
  std::string text;  // text: " provider:name"; jsonl: ,"provider":..,"name":..,"args":[ ; csv: provider,name
  const SiteInfo* info = nullptr;
};

}  // namespace

int run_dump(const ReportOptions& options, TraceInput& input, CommandIo io) {
  DumpFormat format;
  if (options.format == "text") {
    format = DumpFormat::text;
  } else if (options.format == "jsonl") {
    format = DumpFormat::jsonl;
  } else if (options.format == "csv") {
    format = DumpFormat::csv;
  } else {
    print_error(io.err, "dump cannot write format '" + options.format + "' (text, jsonl or csv)");
    return 2;
  }
  Result<EventFilter> filter = make_filter(options, input);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  const ProbeCatalog& catalog = input.catalog();
  std::vector<uint32_t> domains = file_domains(input);
  const bool hosts = input.hosts_differ();

  std::vector<SitePrefix> prefixes(catalog.site_count());
  size_t max_args = 0;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const ProbeInfo& p = catalog.probe_of_site(s);
    prefixes[s].info = &catalog.site(s);
    if (filter->site_selected(s)) max_args = std::max(max_args, catalog.site(s).arg_types.size());
    switch (format) {
      case DumpFormat::text: prefixes[s].text = p.full_name; break;
      case DumpFormat::jsonl:
        prefixes[s].text = ",\"provider\":" + json_string(p.provider) + ",\"name\":" + json_string(p.name) + ",\"args\":[";
        break;
      case DumpFormat::csv: prefixes[s].text = csv_field(p.provider) + "," + csv_field(p.name); break;
    }
  }
  // Host labels per file, already escaped for the format.
  std::vector<std::string> host_labels;
  size_t host_width = 0;
  for (const TraceFileInfo& f : input.files()) host_width = std::max(host_width, f.metadata.hostname.size());
  for (const TraceFileInfo& f : input.files()) {
    switch (format) {
      case DumpFormat::text:
        host_labels.push_back(f.metadata.hostname + std::string(host_width - f.metadata.hostname.size() + 1, ' '));
        break;
      case DumpFormat::jsonl: host_labels.push_back(",\"host\":" + json_string(f.metadata.hostname)); break;
      case DumpFormat::csv: host_labels.push_back(csv_field(f.metadata.hostname) + ","); break;
    }
  }

  OutputBuffer out(io.out);
  if (format == DumpFormat::csv) {
    std::string header = hosts ? "host," : "";
    header += "time_ns,pid,tid,cpu,comm,provider,name";
    for (size_t i = 0; i < max_args; ++i) header += ",arg" + std::to_string(i);
    header += "\n";
    out.append(header);
  }

  ProcessNames names;
  // Names as printed, per interned name index (text: padded; csv: quoted).
  // A deque: the cache below keeps pointers to its strings across growth.
  std::deque<std::string> shown_names;
  const std::string unknown_name = format == DumpFormat::text ? std::string(15, ' ') + "?" : "";
  auto shown = [&](uint32_t n) -> const std::string& {
    if (n == ProcessNames::kNoName) return unknown_name;
    while (shown_names.size() <= n) {
      const std::string& raw = names.name(static_cast<uint32_t>(shown_names.size()));
      if (format == DumpFormat::text) {
        shown_names.push_back(raw.size() < 16 ? std::string(16 - raw.size(), ' ') + raw : raw);
      } else {
        shown_names.push_back(csv_field(raw));
      }
    }
    return shown_names[n];
  };

  const uint64_t start = input.timeline_start();
  struct CommSlot {
    const std::string* comm = nullptr;
    uint32_t tid = 0, pid = 0, file = 0;
  };
  constexpr size_t kCommCacheSize = 1024;
  std::vector<CommSlot> comm_cache(kCommCacheSize);
  Record r;
  while (input.next(r)) {
    if (r.kind == format::RecordKind::process) {
      names.on_process(domains[r.file], *r.process);
      for (CommSlot& slot : comm_cache) slot.comm = nullptr;  // names may have changed
      continue;
    }
    if (r.kind != format::RecordKind::event) continue;
    const format::Event& e = *r.event;
    uint32_t site = catalog.global_site(r.file, e.site_id);
    if (!filter->accepts(site, e, r.time)) continue;
    const SitePrefix& prefix = prefixes[site];
    const size_t nargs = std::min<size_t>(e.arg_count, format::kMaxArgs);
    // A direct-mapped cache of thread names: the name maps cost two hash
    // lookups, most events come from a few threads.
    CommSlot& slot = comm_cache[e.tid & (kCommCacheSize - 1)];
    if (slot.comm == nullptr || e.tid != slot.tid || e.pid != slot.pid || r.file != slot.file) {
      slot.comm = format == DumpFormat::jsonl ? &unknown_name
                                              : &shown(names.thread_name(domains[r.file], e.pid, e.tid));
      slot.tid = e.tid;
      slot.pid = e.pid;
      slot.file = r.file;
    }
    const std::string& comm = *slot.comm;
    char* p = out.begin(160 + host_labels[r.file].size() + comm.size() + prefix.text.size() +
                        (kMaxArgChars + 8) * std::max(nargs, max_args));
    if (format == DumpFormat::text) {
      if (hosts) p = put(p, host_labels[r.file]);
      p = put(p, comm);
      p = put(p, ' ');
      p = put_int(p, e.pid);
      p = put(p, '/');
      p = put_int(p, e.tid);
      p = put(p, std::string_view(" ["));
      p = put_padded(p, e.cpu, e.cpu < 1000 ? 3 : 10);
      p = put(p, std::string_view("] "));
      uint64_t rel = r.time >= start ? r.time - start : 0;
      p = put_int(p, rel / 1000000000u);
      p = put(p, '.');
      p = put_padded(p, rel % 1000000000u, 9);
      p = put(p, std::string_view(": "));
      p = put(p, prefix.text);
      for (size_t i = 0; i < nargs; ++i) {
        p = put(p, kArgLabels[i]);
        if (e.has_arg(static_cast<int>(i))) {
          p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), false);
        } else {
          p = put(p, std::string_view("null"));
        }
      }
      p = put(p, '\n');
    } else if (format == DumpFormat::jsonl) {
      p = put(p, std::string_view("{\"time_ns\":"));
      p = put_int(p, e.time_ns);
      if (hosts) p = put(p, host_labels[r.file]);
      p = put(p, std::string_view(",\"pid\":"));
      p = put_int(p, e.pid);
      p = put(p, std::string_view(",\"tid\":"));
      p = put_int(p, e.tid);
      p = put(p, std::string_view(",\"cpu\":"));
      p = put_int(p, e.cpu);
      p = put(p, prefix.text);
      for (size_t i = 0; i < nargs; ++i) {
        if (i) p = put(p, ',');
        if (e.has_arg(static_cast<int>(i))) {
          p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), true);
        } else {
          p = put(p, std::string_view("null"));
        }
      }
      p = put(p, std::string_view("]}\n"));
    } else {
      if (hosts) p = put(p, host_labels[r.file]);
      p = put_int(p, e.time_ns);
      p = put(p, ',');
      p = put_int(p, e.pid);
      p = put(p, ',');
      p = put_int(p, e.tid);
      p = put(p, ',');
      p = put_int(p, e.cpu);
      p = put(p, ',');
      p = put(p, comm);
      p = put(p, ',');
      p = put(p, prefix.text);
      for (size_t i = 0; i < max_args; ++i) {
        p = put(p, ',');
        if (i < nargs && e.has_arg(static_cast<int>(i))) {
          p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), false);
        }
      }
      p = put(p, '\n');
    }
    out.commit(p);
    out.maybe_flush();
  }
  out.flush();
  report_read_problems(input, io.err);
  if (out.failed()) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

}  // namespace usdt::report
