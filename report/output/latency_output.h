// latency's JSON output (which the HTML report embeds as it is), and what
// it shares with the text output: the percentiles shown, the buckets of a
// set of durations, a pair's key as text.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/pairing/latency_analyzer.h"
#include "report/pairing/latency_pass.h"
#include "report/stats/histogram_bucket.h"

namespace usdt::report {

struct Percentile {
  const char* name;
  const char* json_key;
  unsigned permille;
};
inline constexpr Percentile kPercentiles[] = {
    {"p50", "p50_ns", 500}, {"p90", "p90_ns", 900}, {"p99", "p99_ns", 990}, {"p99.9", "p999_ns", 999}};

// The non-empty range of a set's linear or log2 buckets.
std::vector<HistogramBucket> stats_buckets(const DurationStats& s);

// A pair's key: a number, or a string key (text: escaped and cut to fit
// the --top table; JSON: the whole string).
std::string pair_key_text(const LatencyPair& p, const KeySpec& key, bool json);

// The first n of the slowest pairs the analyzer kept (it keeps as many as
// the larger of --top and --slowest).
std::vector<LatencyPair> top_pairs(const LatencyAnalyzer& analyzer, size_t n);

// Whether groups of pids or tids must say their host (files of several hosts).
bool groups_name_host(const ReportOptions& options, bool hosts_differ);

// latency --format json of the whole input's pass.
std::string latency_json(const ReportOptions& options, const TraceInput& input, const LatencyPass& result);

}  // namespace usdt::report
