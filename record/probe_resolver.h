// From the -e probe specs to the probe sites to attach: every location of
// every matching USDT probe (one site each, with its own semaphore), and
// uprobe/uretprobe function sites.
//
// Where PROVIDER:NAME is looked up: the command's binary (found through PATH)
// and its shared libraries (DT_NEEDED, transitively), or every ELF file the
// -p processes map. A spec with a PATH names files directly (a path or a
// library name) and, with wildcards, selects among those searched files.
// A spec that matches nothing is an error listing the probes that exist.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/arg_spec.h"
#include "common/result.h"
#include "formats/trace_types.h"

namespace usdt::record {

struct ResolvedSite {
  format::ProbeKind kind = format::ProbeKind::usdt;
  std::string path;       // the file as the user or /proc/PID/maps names it
  std::string open_path;  // the path given to the kernel
  std::string build_id;
  std::string provider;  // "uprobe" or "uretprobe" for function sites
  std::string name;      // function sites: SYMBOL[+OFFSET], demangled
  uint64_t file_offset = 0;
  uint64_t semaphore_offset = 0;
  // The probed instruction's link-time address minus its file offset: the
  // kernel adds a fetch-arg's @+OFFSET to the probe's runtime address minus
  // its file offset, so a symbol's OFFSET is its address minus this.
  uint64_t file_base = 0;
  Arch arch = Arch::x86_64;
  std::vector<ArgSpec> args;
};

// Where PROVIDER:NAME specs are searched.
struct SearchScope {
  std::string command_binary;  // -- COMMAND: its path (already found in PATH)
  std::vector<pid_t> pids;     // -p
};

// Resolves the specs, in order, without duplicate sites (same file, offset
// and kind). Fails on a bad spec, an unreadable named file, a spec that
// matches nothing (listing the probes of the searched files), a uprobe
// pattern matching more than max_functions functions (--max-functions: each
// costs perf events and a breakpoint in every traced process), or an +OFFSET beyond
// the function's size.
Result<std::vector<ResolvedSite>> resolve_probes(const std::vector<std::string>& specs,
                                                 const SearchScope& scope,
                                                 size_t max_functions = 1000);

}  // namespace usdt::record
