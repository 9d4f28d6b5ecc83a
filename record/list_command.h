// usdt-record -l: list the USDT probes of files, libraries or processes,
// the functions of a file, or kernel tracepoints.
//
//   usdt-record -l [-v] [PATTERN...] TARGET...
//   usdt-record -l [-v] [PATTERN...] -p PID[,PID...]
//   usdt-record -l [-v] 'uprobe:PATH:PATTERN' | 'tracepoint:SUBSYS:EVENT'
//
// Each positional argument is a TARGET or a PATTERN: an existing file is a
// TARGET; otherwise an argument containing ':' is a PATTERN (a probe spec
// such as 'postgresql:query__*' or 'usdt:*/postgres:*:lwlock*'); anything
// else is a library name ("libstdc++", "ruby") or a command in PATH. -e
// PROBE filters too. A probe is printed when it matches any pattern (all,
// without patterns). How targets are shown: record/list_targets.h.
#pragma once

#include <ostream>

#include "record/record_options.h"

namespace usdt::record {

// Lists and returns the exit status: 0, or 1 when a target failed (the other
// targets are still listed), 2 for a bad pattern. Errors go to err as
// "usdt-record: error: ..." lines.
int run_list_command(const RecordOptions& options, std::ostream& out, std::ostream& err);

}  // namespace usdt::record
