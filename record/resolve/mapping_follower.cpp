#include "record/resolve/mapping_follower.h"

#include <sys/stat.h>

#include <algorithm>

#include "common/glob_match.h"
#include "common/probe_spec.h"
#include "common/proc_maps.h"

namespace usdt::record {
namespace {

// Whether a PROVIDER:NAME spec selects the site.
bool selects(const ProbeSpec& spec, const ResolvedSite& site) {
  return spec.kind == ProbeKind::usdt && spec.path.empty() && glob_match(spec.provider, site.provider) &&
         glob_match(spec.name, site.name);
}

}  // namespace

MappingFollower::MappingFollower(std::vector<ProbeSpec> specs,
                                 const std::vector<std::string>& waiting)
    : specs_(std::move(specs)), waiting_(waiting.begin(), waiting.end()) {}

void MappingFollower::mark_searched(const std::string& open_path) {
  struct stat st;
  if (stat(open_path.c_str(), &st) == 0) seen_.emplace(st.st_dev, st.st_ino);
}

std::vector<ResolvedSite> MappingFollower::examine(const format::ProcessEvent& mmap) {
  // Anonymous code (//anon, a JIT), [vdso], [uprobes]: no file.
  if (mmap.path.empty() || mmap.path[0] != '/') return {};
  std::string open_path = map_files_path(mmap.pid, mmap.map_address, mmap.map_length);
  struct stat st, by_path;
  const bool path_ok = stat(mmap.path.c_str(), &by_path) == 0;
  if (stat(open_path.c_str(), &st) != 0) {
    // Unmapped again, or the process exited, before we looked: the path is
    // all there is, when it still names a file.
    if (!path_ok) return {};
    open_path = mmap.path;
    st = by_path;
  } else if (path_ok && by_path.st_dev == st.st_dev && by_path.st_ino == st.st_ino) {
    // The path names the mapped file: it outlives the mapping (the process
    // may exit, or unmap, before the probes are defined).
    open_path = mmap.path;
  }
  if (!S_ISREG(st.st_mode) || !seen_.emplace(st.st_dev, st.st_ino).second) return {};
  ++examined_;
  Result<std::vector<ResolvedSite>> sites = resolve_usdt_in_file(specs_, mmap.path, open_path);
  if (!sites) return {};  // not ELF, or malformed notes: no probes to attach
  for (const ProbeSpec& spec : specs_) {
    if (waiting_.count(spec.text) == 0) continue;
    if (std::any_of(sites->begin(), sites->end(), [&](const ResolvedSite& s) { return selects(spec, s); })) {
      waiting_.erase(spec.text);
    }
  }
  return std::move(*sites);
}

std::vector<std::string> MappingFollower::never_matched() const {
  std::vector<std::string> out;  // in the order the user gave them
  for (const ProbeSpec& spec : specs_) {
    if (waiting_.count(spec.text) != 0 && std::find(out.begin(), out.end(), spec.text) == out.end()) {
      out.push_back(spec.text);
    }
  }
  return out;
}

}  // namespace usdt::record
