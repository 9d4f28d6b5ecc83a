#include "report/stats/linear_histogram.h"

#include <charconv>
#include <string>

namespace usdt::report {

Result<LinearSpec> parse_linear_spec(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Error("invalid --linear '" + std::string(text) + "': " + why +
                 " (expected MIN,MAX,STEP, e.g. 0,1000,100)");
  };
  int64_t values[3] = {};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    size_t comma = rest.find(',');
    std::string_view part = i < 2 ? rest.substr(0, comma) : rest;
    if (i < 2 && comma == std::string_view::npos) return bad("three numbers are needed");
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), values[i]);
    if (ec != std::errc() || ptr != part.data() + part.size() || part.empty()) {
      return bad("'" + std::string(part) + "' is not an integer");
    }
    if (i < 2) rest = rest.substr(comma + 1);
  }
  LinearSpec spec{values[0], values[1], values[2]};
  if (spec.step <= 0) return bad("STEP must be positive");
  if (spec.min >= spec.max) return bad("MIN must be below MAX");
  __int128 buckets = (static_cast<__int128>(spec.max) - spec.min + spec.step - 1) / spec.step;
  if (buckets > kMaxLinearBuckets) {
    return bad("more than " + std::to_string(kMaxLinearBuckets) + " buckets");
  }
  return spec;
}

LinearHistogram::LinearHistogram(LinearSpec spec) : spec_(spec) {
  __int128 n = (static_cast<__int128>(spec.max) - spec.min + spec.step - 1) / spec.step;
  counts_.assign(static_cast<size_t>(n) + 2, 0);
}

void LinearHistogram::merge(const LinearHistogram& other) {
  for (size_t i = 0; i < counts_.size() && i < other.counts_.size(); ++i)
    counts_[i] += other.counts_[i];
}

std::vector<HistogramBucket> LinearHistogram::buckets() const {
  std::vector<HistogramBucket> out;
  HistogramBucket below;
  below.has_low = false;
  below.high = spec_.min;
  below.count = counts_.front();
  out.push_back(below);
  for (size_t i = 1; i + 1 < counts_.size(); ++i) {
    HistogramBucket b;
    b.low = static_cast<__int128>(spec_.min) + static_cast<__int128>(i - 1) * spec_.step;
    b.high = b.low + spec_.step;
    if (b.high > spec_.max) b.high = spec_.max;
    b.count = counts_[i];
    out.push_back(b);
  }
  HistogramBucket above;
  above.low = spec_.max;
  above.has_high = false;
  above.count = counts_.back();
  out.push_back(above);
  return out;
}

}  // namespace usdt::report
