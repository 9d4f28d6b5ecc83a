// usdt-report hist: the distribution of one argument of one probe (or of
// the probes a pattern selects), optionally per pid, tid or the value of an
// argument (--by argN: a number, or a string argument's text).
#pragma once

#include <string>

#include "report/hist/arg_histogram.h"
#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (an unknown probe, a string
// argument), 2 misuse (a format hist cannot write, no --probe or --arg).
int run_hist(const ReportOptions& options, TraceInput& input, CommandIo io);

// The output: by_host when pid and tid groups of different hosts must say
// which host they are of.
std::string hist_json(const ReportOptions& options, const TraceInput& input, const ArgHistogramAnalyzer& a,
                      bool by_host);
std::string hist_text(const ReportOptions& options, const TraceInput& input, const ArgHistogramAnalyzer& a,
                      bool by_host);

}  // namespace usdt::report
