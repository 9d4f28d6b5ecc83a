// What both exports (Chrome, ClickHouse) need before they read: the pass
// (with its filter), the start/end pairing when asked for, and the open
// output file; and how they end.
#pragma once

#include <optional>

#include "report/input/event_pass.h"
#include "report/input/query.h"
#include "report/output/command_io.h"
#include "report/output/output_file.h"
#include "report/pairing/latency_analyzer.h"

namespace usdt::report {

struct ExportSetup {
  EventPass pass;
  std::optional<LatencyConfig> pairing;  // with pairs
  OutputFile file;
};

// Fails with the message already printed and *exit_code set: 2 without -o,
// 1 for a bad filter, pairing or output file.
std::optional<ExportSetup> prepare_export(const ReportOptions& options, TraceInput& input, bool pairs,
                                          CommandIo io, int* exit_code);

// After the last byte is written: a failed write or close is an error line
// and exit code 1; else the input's read problems are reported and 0 is
// returned (the caller then prints what it wrote).
int finish_export(ExportSetup& setup, bool write_failed, const ReportOptions& options, CommandIo io);

}  // namespace usdt::report
