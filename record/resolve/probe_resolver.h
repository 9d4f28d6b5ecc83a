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
#include "common/probe_spec.h"
#include "common/result.h"
#include "formats/trace_types.h"
#include "record/attach/tracepoint_format.h"

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
  // A uprobe at a function's first instruction (no +OFFSET): the return
  // address is at the stack's top there (-g fp, record/stacks/site_frame.h).
  bool function_entry = false;
  // The last of args is not the probe's: it is the stack pointer at the hit
  // (%rsp), which the trace stores as the site's frame (FORMAT.md 3.4).
  bool frame_last = false;
  // A kernel tracepoint (kind tracepoint; record/resolve/tracepoint_sites.h): its id
  // (perf_event_attr::config), the fields recorded as args (common_* left
  // out, at most format::kMaxArgs), and the names of those that did not fit.
  uint32_t tracepoint_id = 0;
  std::vector<TracepointField> fields;
  std::vector<std::string> fields_left_out;
  // uprobes/uretprobes (record/resolve/function_params.h): per argument, its name
  // and C type from DWARF (empty without DWARF); and when the ABI registers
  // stand in for the parameters, why and what to install.
  std::vector<std::string> arg_names;
  std::vector<std::string> arg_types;
  std::vector<bool> arg_pointers;  // per argument with DWARF: a pointer type
  std::string args_fallback;
  std::string args_hint;
};

// Where PROVIDER:NAME specs are searched.
struct SearchScope {
  std::string command_binary;  // -- COMMAND: its path (already found in PATH)
  std::vector<pid_t> pids;     // -p
  // The recording follows new mappings (record/resolve/mapping_follower.h): a
  // PROVIDER:NAME spec that matches nothing now may match a library loaded
  // later, so it is not an error.
  bool follow = false;
  // --mount-ns-of: a PATH in a probe spec is as this process sees it (its
  // mount namespace, record/resolve/mount_namespace.h); 0: as we see it.
  pid_t mount_ns_of = 0;
};

// What resolve_probes() saw besides the sites.
struct ResolveNotes {
  // PROVIDER:NAME specs that matched nothing (only with SearchScope::follow),
  // each with the message that would have been the error.
  std::vector<std::pair<std::string, std::string>> waiting;
  // Every file searched for PROVIDER:NAME or named by a spec, as opened.
  std::vector<std::string> searched;
  // What the user should know about sites left out (IFUNC resolvers that a
  // uprobe pattern matched), one line each.
  std::vector<std::string> warnings;
};

// Resolves the specs, in order, without duplicate sites (same file, offset
// and kind). Fails on an unreadable named file, a spec that
// matches nothing (listing the probes of the searched files), a uprobe
// pattern matching more than max_functions functions (--max-functions: each
// costs perf events and a breakpoint in every traced process), an +OFFSET beyond
// the function's size, or a uprobe naming an IFUNC (function_symbols.h: a
// probe there would count bindings, not calls; a pattern leaves them out).
Result<std::vector<ResolvedSite>> resolve_probes(const std::vector<ProbeSpec>& specs,
                                                 const SearchScope& scope,
                                                 size_t max_functions = 1000,
                                                 ResolveNotes* notes = nullptr);

// The USDT sites of one file that PROVIDER:NAME specs (those without a PATH;
// others are ignored) select: path is the file as the process maps it (what
// the trace shows), open_path where to read it and what the kernel opens.
Result<std::vector<ResolvedSite>> resolve_usdt_in_file(const std::vector<ProbeSpec>& specs,
                                                       const std::string& path,
                                                       const std::string& open_path);

}  // namespace usdt::record
