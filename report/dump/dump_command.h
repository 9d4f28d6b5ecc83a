// usdt-report dump: one line per event in time order, as text, JSONL or CSV.
// The hot loop formats with std::to_chars into a large buffer; the per-site
// parts of a line (names, quoting) are built once per site, not per event.
//
// jsonl: the parts of a line that hold strings (provider, name, host) are
// built once per site and file with JsonWriter; the per-event loop adds only
// numbers and null, with put_* into the output buffer, for speed.
// csv: an argument that was not recorded is `null`, an argument the probe
// does not have (another probe has more) is an empty field. A path column
// follows name when two selected probes share a name in different files.
//
// String arguments (report/output/string_text.h): text "quoted, escaped", with `...`
// after the closing quote when the recorder cut the string; jsonl a JSON
// string, and the line gets "truncated_args":[i,...] when one was cut; csv
// an RFC 4180 quoted field, and the header gets a last column truncated_args
// (the indexes of the cut ones, space-separated) when a selected probe has
// string arguments. Events without strings (string_mask 0) take the loops
// below unchanged: one test per event.
//
// Call stacks (format 1.3, report/output/stack_text.h): text prints the frames
// under their event, jsonl adds "stack":[...] (and "stack_truncated":true),
// csv a last stack column when the trace holds object blocks (the header is
// fixed before the first event, and a trace without them keeps its columns).
// Each frame is named once per mapping set and address and printed from
// its cached text; events without a stack take the loops unchanged.
//
// Times: text shows seconds since the timeline start ("12.000345678");
// jsonl and csv give time_ns, the event's CLOCK_MONOTONIC value exactly as
// recorded (comparable with the recording host's clock, not shifted).
#pragma once

#include <cstdio>

#include "report/dump/dump_setup.h"
#include "report/input/event_pass.h"
#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (an unknown probe, a write
// error), 2 misuse (a format dump cannot write).
int run_dump(const ReportOptions& options, TraceInput& input, CommandIo io);

// The pass's events written to out in text (dump_text.cpp), or in jsonl or
// csv (dump_rows.cpp).
EventPass::Written write_text_dump(EventPass& pass, const DumpSetup& setup, std::FILE* out);
EventPass::Written write_row_dump(EventPass& pass, const DumpSetup& setup, std::FILE* out);

}  // namespace usdt::report
