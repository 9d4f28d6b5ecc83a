// usdt-report dump: one line per event in time order, as text, JSONL or CSV.
// The hot loop formats with std::to_chars into a large buffer; the per-site
// parts of a line (names, quoting) are built once per site, not per event.
//
// Times: text shows seconds since the timeline start ("12.000345678");
// jsonl and csv give time_ns, the event's CLOCK_MONOTONIC value exactly as
// recorded (comparable with the recording host's clock, not shifted).
#include <algorithm>
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
  std::vector<std::string> shown_names;
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
  Record r;
  while (input.next(r)) {
    if (r.kind == format::RecordKind::process) {
      names.on_process(domains[r.file], *r.process);
      continue;
    }
    if (r.kind != format::RecordKind::event) continue;
    const format::Event& e = *r.event;
    uint32_t site = catalog.global_site(r.file, e.site_id);
    if (!filter->accepts(site, e, r.time)) continue;
    const SitePrefix& prefix = prefixes[site];
    const size_t nargs = e.arg_count;
    out.reserve(256 + prefix.text.size() + 32 * nargs);
    if (format == DumpFormat::text) {
      if (hosts) out.append(host_labels[r.file]);
      if (format == DumpFormat::text) out.append(shown(names.thread_name(domains[r.file], e.pid, e.tid)));
      out.append(' ');
      out.append_int(e.pid);
      out.append('/');
      out.append_int(e.tid);
      out.append(" [");
      out.append_padded(e.cpu, e.cpu < 1000 ? 3 : 10);
      out.append("] ");
      uint64_t rel = r.time >= start ? r.time - start : 0;
      out.append_int(rel / 1000000000u);
      out.append('.');
      out.append_padded(rel % 1000000000u, 9);
      out.append(": ");
      out.append(prefix.text);
      for (size_t i = 0; i < nargs; ++i) {
        out.append(" arg");
        out.append_int(i);
        out.append('=');
        if (e.has_arg(static_cast<int>(i))) {
          append_arg(out, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), false);
        } else {
          out.append("null");
        }
      }
      out.append('\n');
    } else if (format == DumpFormat::jsonl) {
      out.append("{\"time_ns\":");
      out.append_int(e.time_ns);
      if (hosts) out.append(host_labels[r.file]);
      out.append(",\"pid\":");
      out.append_int(e.pid);
      out.append(",\"tid\":");
      out.append_int(e.tid);
      out.append(",\"cpu\":");
      out.append_int(e.cpu);
      out.append(prefix.text);
      for (size_t i = 0; i < nargs; ++i) {
        if (i) out.append(',');
        if (e.has_arg(static_cast<int>(i))) {
          append_arg(out, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), true);
        } else {
          out.append("null");
        }
      }
      out.append("]}\n");
    } else {
      if (hosts) out.append(host_labels[r.file]);
      out.append_int(e.time_ns);
      out.append(',');
      out.append_int(e.pid);
      out.append(',');
      out.append_int(e.tid);
      out.append(',');
      out.append_int(e.cpu);
      out.append(',');
      out.append(shown(names.thread_name(domains[r.file], e.pid, e.tid)));
      out.append(',');
      out.append(prefix.text);
      for (size_t i = 0; i < max_args; ++i) {
        out.append(',');
        if (i < nargs && e.has_arg(static_cast<int>(i))) {
          append_arg(out, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), false);
        }
      }
      out.append('\n');
    }
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
