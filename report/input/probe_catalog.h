// The probes of one or several trace files. Each file numbers its sites
// 0..N-1; the catalog gives every (file, site id) a global site index and
// maps it to a probe, named provider:name. Sites of different files stay
// distinct (their argument types may differ); sites with the same
// provider:name share one probe, so per-probe counts add up across files
// and across the several locations of one probe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::report {

// string: a string argument (usdt-record --string): the event's value is a
// format::StringArg, never a number.
enum class ArgType : uint8_t { signed_int, unsigned_int, float32, float64, string };

ArgType arg_type_of(const format::ArgDescriptor& descriptor);

// An argument's raw bits as a double: integers converted, floats decoded.
double arg_as_double(uint64_t raw, ArgType type);

// The type's name in `summary --format json`: "int32", "uint64", "float64",
// "string" (size in bytes, as the descriptor gives it).
std::string arg_type_name(ArgType type, uint8_t size);

// A probe: USDT probes by provider:name; function probes (uprobe:SYMBOL,
// uretprobe:SYMBOL) by name and file, since two files may each have a
// function of that name.
struct ProbeInfo {
  std::string provider;
  std::string name;
  std::string full_name;  // "provider:name"
  std::string path;       // function probes: the probed file; "" for USDT probes
  // full_name, followed by " (PATH)" when another probe of the catalog has
  // the same full_name (the same function name in another file): what text
  // output shows so the two are not confused.
  std::string shown_name;
  bool ambiguous() const { return shown_name.size() != full_name.size(); }
};

struct SiteInfo {
  uint32_t probe = 0;
  uint32_t file = 0;
  uint32_t site_id = 0;
  format::ProbeKind kind = format::ProbeKind::usdt;
  std::vector<ArgType> arg_types;  // one per descriptor of the site
  std::vector<uint8_t> arg_sizes;  // bytes, per descriptor
  bool has_strings = false;        // some argument is a string
  uint16_t pointer_mask = 0;       // bit i: argument i is an address (format 1.6)
  // Per descriptor: its name (format 1.2), or empty when it has none. Names
  // are usable as selectors: the reader keeps only [A-Za-z0-9_.] names.
  std::vector<std::string> arg_names;
  bool has_names = false;
  // On the file's own clock: 0 when the site was watched from the recording's
  // start; else when it was attached during the recording (format 1.4, a
  // library dlopen()ed later): it has no events before, called or not.
  uint64_t active_since_ns = 0;

  // The index of the argument called name here, -1 when there is none.
  int arg_named(std::string_view name) const;
  // The argument's name, or "argN".
  std::string arg_label(size_t i) const;
};

// The type of argument i of a site (unsigned when the site has no
// descriptor for it).
inline ArgType arg_type_at(const SiteInfo* site, int i) {
  if (site == nullptr || i < 0 || static_cast<size_t>(i) >= site->arg_types.size()) {
    return ArgType::unsigned_int;
  }
  return site->arg_types[static_cast<size_t>(i)];
}

class ProbeCatalog {
 public:
  static constexpr uint32_t kUnknownSite = 0xffffffffu;

  // Adds the next file's probe table (file index = number of files added so
  // far). Site ids need not be dense: ids without a site stay unknown.
  // Function sites are named uprobe:SYMBOL / uretprobe:SYMBOL whatever their
  // provider field says (files before version 1.2 stored the file's base
  // name there).
  void add_file(const std::vector<format::ProbeSite>& sites);
  // Adds sites to the last file added: a trace read while it is written,
  // whose added probe sites blocks (format 1.4) come as it grows. Sites and
  // probes already in the catalog keep their indexes.
  void add_sites_to_last_file(const std::vector<format::ProbeSite>& sites);

  // The global index of a file's site, or kUnknownSite for an id the file's
  // probe table does not have (a corrupted event).
  uint32_t global_site(uint32_t file, uint32_t site_id) const {
    if (file >= bases_.size()) return kUnknownSite;
    const FileRange& r = bases_[file];
    if (site_id >= r.size) return kUnknownSite;
    return site_of_slot_[r.base + site_id];
  }

  // One file's sites at once, for a loop over a run of that file's events:
  // global_site(file, id) is at(id).
  class FileSites {
   public:
    uint32_t at(uint32_t site_id) const { return site_id < size_ ? slots_[site_id] : kUnknownSite; }
    uint32_t size() const { return size_; }  // site ids from 0 to size - 1

   private:
    friend class ProbeCatalog;
    const uint32_t* slots_ = nullptr;
    uint32_t size_ = 0;
  };
  FileSites sites_of(uint32_t file) const {
    FileSites s;
    if (file < bases_.size()) {
      s.slots_ = site_of_slot_.data() + bases_[file].base;
      s.size_ = bases_[file].size;
    }
    return s;
  }

  size_t site_count() const { return sites_.size(); }
  const SiteInfo& site(uint32_t global) const { return sites_[global]; }
  const std::vector<ProbeInfo>& probes() const { return probes_; }
  const ProbeInfo& probe_of_site(uint32_t global) const { return probes_[sites_[global].probe]; }

  // The probes a pattern (report/input/wildcard.h) selects, as probe indexes.
  std::vector<uint32_t> probes_matching(const std::string& pattern) const;

  // "provider:name" of every probe, sorted, for error messages.
  std::vector<std::string> probe_names() const;

 private:
  struct FileRange {
    uint32_t base = 0;
    uint32_t size = 0;
  };
  std::vector<FileRange> bases_;
  std::vector<uint32_t> site_of_slot_;  // base + site id -> global site
  std::vector<SiteInfo> sites_;
  std::vector<ProbeInfo> probes_;
  std::unordered_map<std::string, uint32_t> probe_by_name_;
  std::unordered_map<std::string, uint32_t> names_used_;  // full_name -> probes with it

  void mark_ambiguous(const std::string& full_name);
  // One site of file into the catalog; its slot exists.
  void add_site(uint32_t file, const format::ProbeSite& s);
};

// The error text for a pattern that selects nothing: the probes the trace
// has, and the closest one as "did you mean".
std::string unknown_probe_message(const std::string& pattern, const ProbeCatalog& catalog);

}  // namespace usdt::report
