#include "report/stats/linear_histogram.h"

#include <string>

namespace usdt::report {

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
