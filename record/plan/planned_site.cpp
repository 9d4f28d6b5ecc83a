#include "record/plan/planned_site.h"

#include <cinttypes>
#include <cstdio>
#include <set>
#include <string>

#include "formats/arg_name.h"
#include "record/diagnostics.h"
#include "record/attach/fetch_args.h"
#include "record/resolve/elf_lookup.h"
#include "record/resolve/tracepoint_sites.h"

namespace usdt::record {

void warn_missing_args(const std::vector<PlannedSite>& sites, std::ostream& err) {
  std::set<std::string> said;
  for (const PlannedSite& site : sites) {
    for (size_t i = 0; i < site.sampling.missing_reasons.size(); ++i) {
      const std::string& reason = site.sampling.missing_reasons[i];
      if (reason.empty()) continue;
      const std::string name =
          i < site.resolved.arg_names.size() ? " " + site.resolved.arg_names[i] : std::string();
      std::string line = site.resolved.provider + ":" + site.resolved.name + " arg " +
                         std::to_string(i) + name + " (" + site.resolved.args[i].text + ") " + reason +
                         ": recorded as missing";
      if (said.insert(line).second) warning(err) << line << '\n';
    }
  }
}

void warn_function_arg_fallbacks(const std::vector<PlannedSite>& sites, std::ostream& err) {
  std::set<std::string> said;
  for (const PlannedSite& site : sites) {
    const ResolvedSite& r = site.resolved;
    if (r.args_fallback.empty()) continue;
    const bool ret = r.kind == format::ProbeKind::uretprobe;
    std::string line = r.provider + ":" + r.name + " (" + r.path + "): no " +
                       (ret ? "return type" : "parameters") + " from DWARF, " + r.args_fallback +
                       ": recording the ABI " +
                       (ret ? "return register %rax" : "argument registers %rdi %rsi %rdx %rcx %r8 %r9");
    if (!said.insert(line).second) continue;
    warning(err) << line << '\n';
    if (!r.args_hint.empty()) err << "hint: " << r.args_hint << '\n';
  }
}

void warn_relro_semaphores(const std::vector<PlannedSite>& sites, std::ostream& err) {
  std::set<std::string> said;
  for (const PlannedSite& site : sites) {
    const ResolvedSite& r = site.resolved;
    if (r.semaphore_offset == 0 || said.count(r.path) != 0) continue;
    if (!semaphore_page_mapped_twice(r.open_path, r.semaphore_offset)) continue;
    said.insert(r.path);
    warning(err) << "the semaphores of '" << r.path
        << "' share a file page with its RELRO segment (lld's layout): the kernel raises "
           "the wrong copy and semaphore-gated probes such as "
        << r.provider << ":" << r.name << " will not fire\n"
        << "hint: link the program with -z norelro or with GNU ld\n";
  }
}

format::ProbeSite to_probe_site(const PlannedSite& p, uint32_t id) {
  format::ProbeSite s;
  s.id = id;
  s.kind = p.resolved.kind;
  s.path = p.resolved.path;
  s.build_id = p.resolved.build_id;
  s.provider = p.resolved.provider;
  s.name = p.resolved.name;
  s.file_offset = p.resolved.file_offset;
  s.semaphore_offset = p.resolved.semaphore_offset;
  if (s.kind == format::ProbeKind::tracepoint) {
    for (size_t i = 0; i < p.resolved.fields.size(); ++i) {
      s.args.push_back(tracepoint_arg_descriptor(p.resolved, i));
    }
    return s;
  }
  for (size_t i = 0; i < p.resolved.args.size() && i < static_cast<size_t>(format::kMaxArgs); ++i) {
    const ArgSpec& a = p.resolved.args[i];
    format::ArgDescriptor d;
    d.spec = a.text;
    d.size = a.size;
    d.is_signed = a.is_signed;
    d.is_float = a.is_float;
    d.location = a.location;
    d.source = p.sampling.sources[i];
    d.is_string = (p.sampling.string_mask >> i) & 1;
    if (i < p.resolved.arg_names.size()) d.name = p.resolved.arg_names[i];
    // Names a report can select by (formats/arg_name.h), once per site.
    if (!format::is_valid_arg_name(d.name, i)) d.name.clear();
    for (const format::ArgDescriptor& earlier : s.args) {
      if (earlier.name == d.name) d.name.clear();
    }
    if (d.is_string) d.size = 8;
    d.is_frame = p.resolved.frame_last && i + 1 == p.resolved.args.size();
    // An address, by its DWARF type: text output prints it in hex (1.6).
    d.is_pointer = !d.is_string && !d.is_frame && i < p.resolved.arg_pointers.size() &&
                   p.resolved.arg_pointers[i];
    s.args.push_back(std::move(d));
  }
  return s;
}

SiteAttach to_site_attach(const PlannedSite& p, uint32_t id) {
  SiteAttach a;
  a.site_id = id;
  a.config.path = p.resolved.open_path;
  a.config.file_offset = p.resolved.file_offset;
  a.config.semaphore_offset = p.resolved.semaphore_offset;
  a.config.retprobe = p.resolved.kind == format::ProbeKind::uretprobe;
  a.config.regs_mask = p.sampling.regs_mask;
  a.config.stack_bytes = p.sampling.stack_bytes;
  a.bpf = p.bpf;
  if (p.resolved.kind == format::ProbeKind::tracepoint) {
    a.config.tracepoint_id = p.resolved.tracepoint_id;
    a.config.raw = true;
    a.config.period = true;
    a.config.label = "tracepoint " + p.resolved.provider + ":" + p.resolved.name;
  }
  return a;
}

SiteDecoding to_site_decoding(const PlannedSite& p, uint32_t id) {
  SiteDecoding d;
  d.site_id = id;
  d.regs_mask = p.sampling.regs_mask;
  d.stack_bytes = p.sampling.stack_bytes;
  d.args = p.resolved.args;
  d.sources = p.sampling.sources;
  d.arch = p.resolved.arch;
  d.raw = p.sampling.needs_kernel_reads();
  d.caller_repair = p.caller_repair;
  if (p.resolved.kind == format::ProbeKind::tracepoint) {
    d.raw = true;  // also for a tracepoint without fields: its sample has the raw size
    d.period = true;
    d.raw_args = tracepoint_raw_layout(p.resolved);
  }
  return d;
}

Result<std::vector<RawArg>> raw_layout(const PlannedSite& p, const TracefsEvent& event) {
  std::vector<RawArg> layout(p.sampling.sources.size());
  for (size_t i = 0; i < layout.size(); ++i) {
    // (The BPF path's reads have no fetch-args: the program reads them.)
    if (p.sampling.sources[i] != ArgSource::kernel_read || p.sampling.fetch_args[i].empty()) {
      continue;
    }
    RawArg& r = layout[i];
    const TraceField* value = event.field(value_field(i));
    if (value == nullptr) return Error("the event has no field " + value_field(i));
    r.value = static_cast<int32_t>(value->offset);
    r.size = static_cast<uint8_t>(value->size);
    r.string = value->data_loc;
    if (const TraceField* f = event.field(first_byte_field(i))) r.first = static_cast<int32_t>(f->offset);
    if (const TraceField* f = event.field(last_byte_field(i))) r.last = static_cast<int32_t>(f->offset);
  }
  return layout;
}

std::string tracefs_probe_location(const PlannedSite& p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ":0x%" PRIx64, p.resolved.file_offset);
  std::string out = p.resolved.open_path + buf;
  if (p.resolved.semaphore_offset != 0) {
    std::snprintf(buf, sizeof buf, "(0x%" PRIx64 ")", p.resolved.semaphore_offset);
    out += buf;
  }
  return out;
}

std::string tracefs_fetch_args(const PlannedSite& p) {
  std::string out;
  for (const std::string& f : p.sampling.fetch_args) {
    if (f.empty()) continue;
    if (!out.empty()) out += ' ';
    out += f;
  }
  return out;
}

}  // namespace usdt::record
