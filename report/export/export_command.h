// usdt-report export: the trace as a Chrome trace-event JSON file
// (chrome_export.cpp) or as rows for ClickHouse (clickhouse_export.cpp).
#pragma once

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (an unknown probe, a write
// error), 2 misuse (no -o, a format export cannot write).
int run_export(const ReportOptions& options, TraceInput& input, CommandIo io);

int run_chrome_export(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_clickhouse_export(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
