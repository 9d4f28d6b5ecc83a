// usdt-report heatmap: a latency heat map (report/output/heat_map.h) of the
// pairs of --start and --end, at the time of each end, one panel per --by
// group (the busiest kMaxHeatMapPanels, the others said under them); or,
// with --probe P --arg N, the argument's value over time.
#pragma once

#include <cstddef>

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

constexpr size_t kMaxHeatMapPanels = 8;

// Returns the exit code: 0 done, 1 failure (unknown probes, nothing to
// draw, a write error).
int run_heatmap(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
