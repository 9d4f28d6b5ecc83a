// Turns the latency options (--start, --end, --key, --by, --hist,
// --linear, --top) into a LatencyConfig for a trace's probes; shared by the
// latency and export commands.
#pragma once

#include "common/result.h"
#include "report/pairing/latency_analyzer.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"

namespace usdt::report {

// Fails when --start or --end names no probe of the trace (listing those it
// has), when they select the same probe, or on --hist linear without
// --linear.
Result<LatencyConfig> make_latency_config(const ReportOptions& options, const ProbeCatalog& catalog);

}  // namespace usdt::report
