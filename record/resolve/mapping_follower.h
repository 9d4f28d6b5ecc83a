// Libraries loaded after the recording started: the traced processes'
// executable mappings come as PERF_RECORD_MMAP2 (record/session/drainer.h); each
// newly mapped file is examined once for USDT probes that the PROVIDER:NAME
// specs select, so that `-e 'hotspot:*' -- java` finds libjvm.so, which the
// launcher dlopen()s.
//
// A file is read, and given to the kernel, by its path when that names the
// very file the process mapped (same device and inode); otherwise through
// the mapping itself (/proc/PID/map_files/START-END, root only): a file
// deleted or replaced since, one in another mount namespace, or a memfd
// ("/memfd:NAME (deleted)", which no path opens). Only the path outlives
// the mapping: a map_files path works while the process keeps it mapped. Files are told apart by
// device and inode, so a library mapped by many processes, or unloaded and loaded again, is
// examined once.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/probe_spec.h"
#include "formats/trace_types.h"
#include "record/resolve/probe_resolver.h"

namespace usdt::record {

class MappingFollower {
 public:
  // specs: the recording's probe specs; only PROVIDER:NAME ones (no PATH)
  // are looked for in new files. waiting: those that matched nothing at the
  // start.
  MappingFollower(std::vector<ProbeSpec> specs, const std::vector<std::string>& waiting);

  // A file searched at the start: its probes are attached already.
  void mark_searched(const std::string& open_path);

  // The sites the specs select in the file of this mmap, the first time the
  // file is seen; none for a file seen before, one that is not ELF, or one
  // that cannot be read (the process exited and its path is gone).
  std::vector<ResolvedSite> examine(const format::ProcessEvent& mmap);

  // The specs that have matched no file, at the start or since (as written).
  std::vector<std::string> never_matched() const;
  uint64_t files_examined() const { return examined_; }

 private:
  std::vector<ProbeSpec> specs_;
  std::set<std::string> waiting_;  // by text
  std::set<std::pair<dev_t, ino_t>> seen_;
  uint64_t examined_ = 0;
};

}  // namespace usdt::record
