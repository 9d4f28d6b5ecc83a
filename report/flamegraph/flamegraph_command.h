// usdt-report flamegraph: the call stacks of the selected events (a trace
// recorded with usdt-record -g) as an interactive flame graph in one SVG
// file (report/output/flame_graph.h), from the same stacks as
// `stacks --folded`.
//
// --reverse: an icicle of the callers: each stack from its innermost frame,
// so that a hot function's callers hang below it.
// --diff A B: a differential graph of B against A (two traces, each read on
// its own): widths are B's events, colors the change of each frame's share
// of the events, so that traces of different lengths compare.
#pragma once

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (no stacks, unreadable traces, a
// write error).
int run_flamegraph(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
