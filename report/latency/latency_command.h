// usdt-report latency: durations between a start and an end probe, paired
// on a key (see LatencyAnalyzer), with exact count/min/mean/max,
// percentiles within LogLinearHistogram::kRelativeError, and histograms.
// String keys and groups (--key/--by argN on a string argument): the text
// output labels a group with the escaped string cut to kGroupLabelChars
// characters ("SELECT ..."...); JSON gives the whole string, and
// "key_truncated":true when the recorder cut it.
#pragma once

#include <string>

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/pairing/latency_pass.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (an unknown probe), 2 misuse (a
// format latency cannot write).
int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io);
// latency --follow: the trace (one) read while it is written; on a terminal
// the report of what it holds so far every second, at the end of the
// recording the report of the whole (the only output elsewhere).
int run_latency_follow(const ReportOptions& options, CommandIo io);

// The text output of the whole input's pass (JSON: report/output/latency_output.h).
std::string latency_text(const ReportOptions& options, const TraceInput& input, const LatencyPass& result);

}  // namespace usdt::report
