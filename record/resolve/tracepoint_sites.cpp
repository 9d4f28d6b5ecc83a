#include "record/resolve/tracepoint_sites.h"

#include <cerrno>
#include <set>

#include "record/diagnostics.h"
#include "record/attach/tracefs.h"

namespace usdt::record {

void split_tracepoint_specs(const std::vector<ProbeSpec>& specs, std::vector<ProbeSpec>& tracepoints,
                            std::vector<ProbeSpec>& others) {
  for (const ProbeSpec& spec : specs) (spec.kind == ProbeKind::tracepoint ? tracepoints : others).push_back(spec);
}

Error tracefs_unavailable(const Error& error) {
  int err = error.errno_value();
  std::string text = "tracepoints need tracefs: " + error.message();
  if (err == EPERM || err == EACCES) text += "\nhint: run as root (tracefs belongs to root)";
  return Error(text);
}

Result<std::vector<ResolvedSite>> resolve_tracepoints(const std::string& tracefs_dir,
                                                      const std::vector<ProbeSpec>& specs) {
  std::vector<ResolvedSite> sites;
  std::set<uint32_t> seen;
  for (const ProbeSpec& spec : specs) {
    Result<std::vector<Tracepoint>> found = find_tracepoints(tracefs_dir, spec);
    if (!found) return found.error();
    for (const Tracepoint& t : *found) {
      if (!seen.insert(t.format.id).second) continue;
      sites.push_back(tracepoint_site(t));
    }
  }
  return sites;
}

ResolvedSite tracepoint_site(const Tracepoint& tracepoint) {
  ResolvedSite site;
  site.kind = format::ProbeKind::tracepoint;
  site.provider = tracepoint.subsystem;
  site.name = tracepoint.event;
  site.tracepoint_id = tracepoint.format.id;
  site.file_offset = tracepoint.format.id;
  for (const TracepointField& f : tracepoint.format.fields) {
    // pid and tid are in every sample already.
    if (f.common()) continue;
    if (site.fields.size() == static_cast<size_t>(format::kMaxArgs)) {
      site.fields_left_out.push_back(f.name);
      continue;
    }
    ArgSpec a;
    a.text = f.line;
    a.location = ArgLocation::memory;
    a.size = f.form == FieldForm::integer ? static_cast<uint8_t>(f.size) : 8;
    a.is_signed = f.form == FieldForm::integer && f.is_signed;
    site.args.push_back(std::move(a));
    site.fields.push_back(f);
  }
  return site;
}

std::vector<RawArg> tracepoint_raw_layout(const ResolvedSite& site) {
  std::vector<RawArg> layout;
  for (const TracepointField& f : site.fields) {
    RawArg r;
    r.value = static_cast<int32_t>(f.offset);
    r.rel_loc = f.rel_loc;
    switch (f.form) {
      case FieldForm::integer:
        r.size = static_cast<uint8_t>(f.size);
        break;
      case FieldForm::char_array:
        r.string = true;
        r.fixed = f.size;
        break;
      case FieldForm::byte_array:
        r.hex = true;
        r.fixed = f.size;
        break;
      case FieldForm::data_loc_string:
        r.string = true;
        break;
      case FieldForm::data_loc_bytes:
        r.hex = true;
        break;
    }
    layout.push_back(r);
  }
  return layout;
}

format::ArgDescriptor tracepoint_arg_descriptor(const ResolvedSite& site, size_t i) {
  const TracepointField& f = site.fields[i];
  format::ArgDescriptor d;
  d.spec = f.line;
  d.location = ArgLocation::memory;
  d.source = ArgSource::kernel_read;
  d.is_string = f.form != FieldForm::integer;
  d.size = d.is_string ? 8 : static_cast<uint8_t>(f.size);
  d.is_signed = !d.is_string && f.is_signed;
  // "const char * filename", "void * ptr": an address (format 1.6).
  d.is_pointer = !d.is_string && d.size == 8 && f.type.find('*') != std::string::npos;
  d.name = f.name;
  return d;
}

void warn_fields_left_out(const std::vector<ResolvedSite>& sites, std::ostream& err) {
  for (const ResolvedSite& site : sites) {
    if (site.fields_left_out.empty()) continue;
    std::string names;
    for (const std::string& n : site.fields_left_out) names += (names.empty() ? "" : ", ") + n;
    warning(err) << site.provider << ':' << site.name << " has "
        << site.fields.size() + site.fields_left_out.size() << " fields, a probe holds at most "
        << format::kMaxArgs << ": left out " << names << '\n';
  }
}

namespace {

std::string describe_field(const TracepointField& f) {
  switch (f.form) {
    case FieldForm::integer:
      return std::string(f.is_signed ? "signed" : "unsigned") + " " + std::to_string(f.size) +
             "-byte integer";
    case FieldForm::char_array:
    case FieldForm::data_loc_string:
      return "string";
    case FieldForm::byte_array:
    case FieldForm::data_loc_bytes:
      return "bytes, as hex text";
  }
  return "";
}

}  // namespace

int list_tracepoints(const std::vector<ProbeSpec>& specs, bool verbose, std::ostream& out, std::ostream& err) {
  Result<TracefsMount> tracefs = TracefsMount::open();
  if (!tracefs) {
    print_error(err, tracefs_unavailable(tracefs.error()));
    return 1;
  }
  int status = 0;
  for (const ProbeSpec& spec : specs) {
    Result<std::vector<Tracepoint>> found = find_tracepoints(tracefs->dir(), spec);
    if (!found) {
      print_error(err, found.error());
      status = 1;
      continue;
    }
    for (const Tracepoint& t : *found) {
      out << "tracepoint:" << t.subsystem << ':' << t.event << '\n';
      if (!verbose) continue;
      ResolvedSite site = tracepoint_site(t);
      for (size_t i = 0; i < site.fields.size(); ++i) {
        out << "    arg" << i << ": " << site.fields[i].name << "  " << site.fields[i].line << "  ["
            << describe_field(site.fields[i]) << "]\n";
      }
      for (const std::string& name : site.fields_left_out) {
        out << "    " << name << ": left out (a probe holds at most " << format::kMaxArgs
            << " arguments)\n";
      }
      if (site.fields.empty() && site.fields_left_out.empty()) out << "    no fields\n";
    }
  }
  out.flush();
  return status;
}

}  // namespace usdt::record
