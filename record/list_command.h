// usdt-record -l: list the USDT probes of files, libraries or processes.
//
//   usdt-record -l [-v] [PATTERN...] TARGET...
//   usdt-record -l [-v] [PATTERN...] -p PID[,PID...]
//
// Each positional argument is a TARGET or a PATTERN: an existing file is a
// TARGET; otherwise an argument containing ':' is a PATTERN (a probe spec
// such as 'postgresql:query__*' or 'usdt:*/postgres:*:lwlock*'); anything
// else is a library name ("libstdc++", "libc.so.6"). -e PROBE filters too.
// A probe is printed when it matches any pattern (all, without patterns).
#pragma once

#include <ostream>
#include <vector>

#include "common/probe_spec.h"
#include "common/usdt_probe.h"
#include "record/record_options.h"

namespace usdt::record {

// Lists and returns the exit status: 0, or 1 when a target failed (the other
// targets are still listed), 2 for a bad pattern. Errors go to err as
// "usdt-record: error: ..." lines.
int run_list_command(const RecordOptions& options, std::ostream& out, std::ostream& err);

// Prints the probes of one file that match the filters (all when empty);
// returns how many probes were printed. With verbose, each argument's line
// says how a recording reads it, --string (strings) included: on the path
// capture names, and with auto on both (record/plan/bpf_arg_plan.h).
size_t print_usdt_file(const UsdtFile& file, const std::vector<ProbeSpec>& filters, bool verbose,
                       std::ostream& out, const std::vector<StringArgs>& strings = {},
                       CaptureMode capture = CaptureMode::sample);

}  // namespace usdt::record
