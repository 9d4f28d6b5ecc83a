#include "report/output/latency_output.h"

#include "report/output/arg_format.h"
#include "report/output/json_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

namespace {

constexpr size_t kTopKeyChars = 40;  // string keys in the --top table

}  // namespace

std::vector<HistogramBucket> stats_buckets(const DurationStats& s) {
  if (s.linear() != nullptr) return trim_empty_ends(s.linear()->buckets());
  return trim_empty_ends(log2_buckets(s.histogram().log2_counts()));
}

std::string pair_key_text(const LatencyPair& p, const KeySpec& key, bool json) {
  if (p.key_type == ArgType::string) {
    return json ? json_string(p.key_text) : text_label(p.key_text, p.key_truncated, kTopKeyChars);
  }
  if (key.kind == KeySpec::Kind::arg) return arg_text(p.key, p.key_type, json);
  return std::to_string(p.key);
}

std::vector<LatencyPair> top_pairs(const LatencyAnalyzer& analyzer, size_t n) {
  std::vector<LatencyPair> top = analyzer.top();
  if (top.size() > n) top.resize(n);
  return top;
}

bool groups_name_host(const ReportOptions& options, bool hosts_differ) {
  return hosts_differ && options.by && options.by->kind != KeySpec::Kind::arg &&
         options.by->kind != KeySpec::Kind::host;
}

}  // namespace usdt::report
