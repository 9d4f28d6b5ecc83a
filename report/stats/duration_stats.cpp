#include "report/stats/duration_stats.h"

#include "report/stats/histogram_bucket.h"

namespace usdt::report {

void DurationStats::merge(const DurationStats& other) {
  if (other.count_ == 0) return;
  if (other.min_ < min_) min_ = other.min_;
  if (other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
  sum_ += other.sum_;
  histogram_->merge(*other.histogram_);
  if (linear_ && other.linear_) linear_->merge(*other.linear_);
}

std::string DurationStats::mean_text() const { return decimal_ratio(sum_, count_); }

}  // namespace usdt::report
