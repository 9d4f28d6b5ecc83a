// usdt-report html: one HTML file that opens offline (report/html/html_page.h):
// the recording's metadata, the summary, with --start/--end the latency per
// pair and per group, its heat map and the slowest pairs with their stacks,
// and a flame graph of each probe with stacks. Each part comes from the
// same pass and output code as its own command (summary, latency --format
// json, heatmap, flamegraph).
#pragma once

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (unknown probes, a write error).
int run_html(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
