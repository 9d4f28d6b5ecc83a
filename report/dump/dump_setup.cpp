#include "report/dump/dump_setup.h"

#include <algorithm>
#include <cstring>

#include "report/output/arg_format.h"
#include "report/output/json_writer.h"

namespace usdt::report {

namespace {

std::vector<char> padded_copy(std::string_view s) {
  std::vector<char> v((s.size() + 15) / 16 * 16 + 16, '\0');
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

// text: ": provider:name" padded, the types, the labels of named arguments.
// A function probe whose parameters DWARF named (or that has none) reads as
// a call: "work(n=3, m=10)", "work() = 13"; the file, where shown, follows
// the call.
void text_prefix(const ProbeInfo& p, const SiteInfo& site, SitePrefix& prefix) {
  prefix.text = p.shown_name;
  const bool call = (site.kind == format::ProbeKind::uprobe || site.kind == format::ProbeKind::uretprobe) &&
                    (site.has_names || site.arg_types.empty());
  const bool ret = site.kind == format::ProbeKind::uretprobe;
  std::string shown = ": " + (call ? p.full_name : p.shown_name);
  if (call) {
    shown += ret ? "()" : "(";
    prefix.closing = (ret ? "" : ")") + p.shown_name.substr(p.full_name.size());
  }
  prefix.padded = padded_copy(shown);
  prefix.padded_len = shown.size();
  for (int i = 0; i < format::kMaxArgs; ++i) prefix.types[i] = arg_type_at(&site, i);
  prefix.pointers = site.pointer_mask;
  if (!site.has_names) return;
  // Events may carry more arguments than the site describes: argN for those.
  for (size_t i = 0; i < format::kMaxArgs; ++i) {
    std::string label = " " + site.arg_label(i) + "=";
    if (call && ret && i == 0) label = " = ";
    if (call && !ret) label = (i == 0 ? "" : ", ") + site.arg_label(i) + "=";
    prefix.labels.push_back(std::move(label));
    prefix.labels_len += prefix.labels.back().size();
  }
}

// The middle of a jsonl line: ,"provider":..,"name":..,"args":[ (and the
// file, where another file has a function of the same name).
void jsonl_prefix(const ProbeInfo& p, SitePrefix& prefix) {
  JsonWriter w(prefix.text);
  w.continue_object().key("provider").string(p.provider).key("name").string(p.name);
  if (p.ambiguous()) w.key("path").string(p.path);
  w.key("args").begin_array();
}

// Host labels per file, already escaped for the format.
std::vector<std::string> host_labels(DumpFormat format, const TraceInput& input) {
  std::vector<std::string> labels;
  size_t host_width = 0;
  for (const TraceFileInfo& f : input.files()) host_width = std::max(host_width, f.metadata.hostname.size());
  for (const TraceFileInfo& f : input.files()) {
    switch (format) {
      case DumpFormat::text:
        labels.push_back(f.metadata.hostname + std::string(host_width - f.metadata.hostname.size() + 1, ' '));
        break;
      case DumpFormat::jsonl: {
        std::string label;
        JsonWriter(label).continue_object().key("host").string(f.metadata.hostname);
        labels.push_back(std::move(label));
        break;
      }
      case DumpFormat::csv:
        labels.push_back(csv_field(f.metadata.hostname) + ",");
        break;
    }
  }
  return labels;
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

DumpSetup make_dump_setup(DumpFormat format, const TraceInput& input, const EventFilter& filter,
                          const std::vector<uint32_t>& domains) {
  const ProbeCatalog& catalog = input.catalog();
  DumpSetup setup;
  setup.format = format;
  setup.filter = &filter;
  setup.catalog = &catalog;
  setup.domains = domains;
  setup.hosts = input.hosts_differ();
  setup.prefixes.resize(catalog.site_count());
  // csv: a path column after name when two selected probes share a name in
  // different files (functions of one name), as jsonl then gives "path".
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    setup.paths = setup.paths || (filter.site_selected(s) && catalog.probe_of_site(s).ambiguous());
  }
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const ProbeInfo& p = catalog.probe_of_site(s);
    SitePrefix& prefix = setup.prefixes[s];
    prefix.info = &catalog.site(s);
    if (filter.site_selected(s)) {
      setup.max_args = std::max(setup.max_args, catalog.site(s).arg_types.size());
      setup.strings = setup.strings || catalog.site(s).has_strings;
    }
    switch (format) {
      case DumpFormat::text: text_prefix(p, catalog.site(s), prefix); break;
      case DumpFormat::jsonl: jsonl_prefix(p, prefix); break;
      case DumpFormat::csv:
        prefix.text = csv_field(p.provider) + "," + csv_field(p.name);
        if (setup.paths) prefix.text += "," + csv_field(p.path);
        break;
    }
  }
  setup.host_labels = host_labels(format, input);
  // csv has a fixed header: a stack column when the trace has the symbols
  // of stacks (object blocks, format 1.3), so files without stacks keep
  // their columns.
  for (const TraceFileInfo& f : input.files()) setup.stacks = setup.stacks || !f.objects().empty();
  setup.unknown_name = format == DumpFormat::text ? std::string(15, ' ') + "?" : "";
  return setup;
}

std::string csv_header(const DumpSetup& setup) {
  std::string header = setup.hosts ? "host," : "";
  header += "time_ns,pid,tid,cpu,comm,provider,name";
  if (setup.paths) header += ",path";
  for (size_t i = 0; i < setup.max_args; ++i) header += ",arg" + std::to_string(i);
  if (setup.strings) header += ",truncated_args";
  if (setup.stacks) header += ",stack";
  header += "\n";
  return header;
}

}  // namespace usdt::report
