// What both exports (Chrome, ClickHouse) need before they read: the filter,
// the start/end pairing when asked for, and the open output file.
#pragma once

#include <optional>

#include "report/commands.h"
#include "report/event_filter.h"
#include "report/latency_analyzer.h"
#include "report/output_file.h"

namespace usdt::report {

struct ExportSetup {
  EventFilter filter;
  std::optional<LatencyConfig> pairing;  // with pairs
  OutputFile file;
};

// Fails with the message already printed and *exit_code set: 2 without -o,
// 1 for a bad filter, pairing or output file.
std::optional<ExportSetup> prepare_export(const ReportOptions& options, TraceInput& input,
                                          bool pairs, CommandIo io, int* exit_code);

}  // namespace usdt::report
