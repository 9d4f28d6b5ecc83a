// usdt-report stacks: the call stacks of the selected events (format 1.3,
// usdt-record -g), aggregated with counts, hottest first.
//
// Events are first counted per raw stack (probe, the mapping set current at
// the event, the addresses): big traces have millions of events but few
// distinct stacks, and naming frames costs far more than a hash lookup.
// The raw stacks are then named and merged by probe and function names
// (without offsets: two return addresses in one function are one frame, as
// in flame graphs). A frame without a symbol is `object+0xOFFSET`, without
// a mapping `[unknown]`.
//
// --folded: one line per stack, `probe;outermost;...;innermost COUNT`, the
// input of flamegraph.pl, speedscope and Perfetto. The probe is the root, so
// that a flame graph of several probes keeps each probe's stacks apart; a
// cut stack has `[truncated]` right below the probe, where its missing
// outer frames would be. ';' in names becomes ':' and line breaks spaces,
// so that every line splits back into the same frames.
#pragma once

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (no stacks in the selected
// events, a write error), 2 misuse (a format stacks cannot write).
int run_stacks(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
