#include "report/input/probe_catalog.h"

#include <cstring>

#include <algorithm>

#include "report/input/wildcard.h"

namespace usdt::report {

ArgType arg_type_of(const format::ArgDescriptor& d) {
  if (d.is_string) return ArgType::string;
  if (d.is_float) return d.size == 4 ? ArgType::float32 : ArgType::float64;
  return d.is_signed ? ArgType::signed_int : ArgType::unsigned_int;
}

std::string arg_type_name(ArgType type, uint8_t size) {
  switch (type) {
    case ArgType::string: return "string";
    case ArgType::float32: return "float32";
    case ArgType::float64: return "float64";
    case ArgType::signed_int: return "int" + std::to_string(size * 8);
    case ArgType::unsigned_int: return "uint" + std::to_string(size * 8);
  }
  return "?";
}

void ProbeCatalog::add_file(const std::vector<format::ProbeSite>& sites) {
  uint32_t file = static_cast<uint32_t>(bases_.size());
  uint32_t size = 0;
  for (const format::ProbeSite& s : sites) {
    if (s.id != format::kNoSite) size = std::max(size, s.id + 1);
  }
  // A hostile probe table could claim id 4e9; ids are dense in valid files,
  // so cap the slot table at a generous multiple of the site count.
  size = std::min<uint32_t>(size, static_cast<uint32_t>(sites.size()) * 4 + 64);
  FileRange range{static_cast<uint32_t>(site_of_slot_.size()), size};
  bases_.push_back(range);
  site_of_slot_.resize(site_of_slot_.size() + size, kUnknownSite);
  for (const format::ProbeSite& s : sites) {
    if (s.id < size) add_site(file, s);
  }
}

void ProbeCatalog::add_sites_to_last_file(const std::vector<format::ProbeSite>& sites) {
  if (bases_.empty()) return add_file(sites);
  const uint32_t file = static_cast<uint32_t>(bases_.size() - 1);
  FileRange& range = bases_.back();
  uint32_t size = range.size;
  for (const format::ProbeSite& s : sites) {
    if (s.id != format::kNoSite) size = std::max(size, s.id + 1);
  }
  // The same cap as add_file's, on the file's sites so far.
  size = std::min<uint32_t>(size, range.size + static_cast<uint32_t>(sites.size()) * 4 + 64);
  site_of_slot_.resize(range.base + size, kUnknownSite);  // the last file's slots end the table
  range.size = size;
  for (const format::ProbeSite& s : sites) {
    if (s.id < size && site_of_slot_[range.base + s.id] == kUnknownSite) add_site(file, s);
  }
}

void ProbeCatalog::add_site(uint32_t file, const format::ProbeSite& s) {
  const FileRange& range = bases_[file];
  const bool function =
      s.kind == format::ProbeKind::uprobe || s.kind == format::ProbeKind::uretprobe;
  std::string provider = s.provider;
  if (function) provider = s.kind == format::ProbeKind::uprobe ? "uprobe" : "uretprobe";
  std::string full = provider + ":" + s.name;
  std::string path = function ? s.path : "";
  // '\n' cannot occur in a probe name: the key of a function probe is
  // its name and file.
  std::string key = function ? full + '\n' + path : full;
  auto [it, added] = probe_by_name_.emplace(key, static_cast<uint32_t>(probes_.size()));
  if (added) {
    probes_.push_back(ProbeInfo{provider, s.name, full, path, full});
    if (++names_used_[full] > 1) mark_ambiguous(full);
  }
  uint32_t probe = it->second;
  SiteInfo info;
  info.kind = s.kind;
  info.probe = probe;
  info.file = file;
  info.site_id = s.id;
  info.active_since_ns = s.active_since_ns;
  for (const format::ArgDescriptor& a : s.args) {
    info.arg_types.push_back(arg_type_of(a));
    info.arg_sizes.push_back(a.size);
    info.has_strings = info.has_strings || a.is_string;
    if (a.is_pointer && !a.is_string && info.arg_types.size() <= format::kMaxArgs) {
      info.pointer_mask =
          static_cast<uint16_t>(info.pointer_mask | 1u << (info.arg_types.size() - 1));
    }
    info.arg_names.push_back(a.name);
    info.has_names = info.has_names || !a.name.empty();
  }
  site_of_slot_[range.base + s.id] = static_cast<uint32_t>(sites_.size());
  sites_.push_back(std::move(info));
}

int SiteInfo::arg_named(std::string_view name) const {
  for (size_t i = 0; i < arg_names.size(); ++i) {
    if (arg_names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string SiteInfo::arg_label(size_t i) const {
  if (i < arg_names.size() && !arg_names[i].empty()) return arg_names[i];
  return "arg" + std::to_string(i);
}

void ProbeCatalog::mark_ambiguous(const std::string& full_name) {
  for (ProbeInfo& p : probes_) {
    if (p.full_name == full_name) p.shown_name = p.full_name + " (" + p.path + ")";
  }
}

std::vector<uint32_t> ProbeCatalog::probes_matching(const std::string& pattern) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < probes_.size(); ++i) {
    if (probe_pattern_matches(pattern, probes_[i].provider, probes_[i].name)) out.push_back(i);
  }
  return out;
}

std::vector<std::string> ProbeCatalog::probe_names() const {
  std::vector<std::string> names;
  for (const ProbeInfo& p : probes_) names.push_back(p.full_name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string unknown_probe_message(const std::string& pattern, const ProbeCatalog& catalog) {
  std::vector<std::string> names = catalog.probe_names();
  std::string message = "no probe in the trace matches '" + pattern + "'";
  std::string guess = closest_match(pattern, names);
  if (guess.empty() && pattern.find(':') == std::string::npos) {
    std::vector<std::string> bare;
    for (const ProbeInfo& p : catalog.probes()) bare.push_back(p.name);
    std::string bare_guess = closest_match(pattern, bare);
    for (const ProbeInfo& p : catalog.probes()) {
      if (!bare_guess.empty() && p.name == bare_guess) guess = p.full_name;
    }
  }
  if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
  if (names.empty()) {
    message += "; the trace has no probes";
  } else {
    message += "; the trace has: ";
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) message += ", ";
      message += names[i];
    }
  }
  return message;
}

double arg_as_double(uint64_t raw, ArgType type) {
  switch (type) {
    case ArgType::float32: {
      float f;
      uint32_t bits = static_cast<uint32_t>(raw);
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case ArgType::float64: {
      double d;
      std::memcpy(&d, &raw, sizeof d);
      return d;
    }
    case ArgType::signed_int: return static_cast<double>(static_cast<int64_t>(raw));
    case ArgType::unsigned_int:
    case ArgType::string: return static_cast<double>(raw);  // hist refuses strings
  }
  return 0;
}

}  // namespace usdt::report
