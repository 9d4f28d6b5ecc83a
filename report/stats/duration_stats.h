// Statistics of a set of durations (ns): exact count, min, max and sum
// (hence mean), and a LogLinearHistogram for percentiles, plus an optional
// linear histogram for `--hist linear`. Memory does not grow with the count.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "report/stats/linear_histogram.h"
#include "report/stats/log_linear_histogram.h"

namespace usdt::report {

class DurationStats {
 public:
  explicit DurationStats(std::optional<LinearSpec> linear = std::nullopt)
      : histogram_(std::make_unique<LogLinearHistogram>()) {
    if (linear) linear_ = std::make_unique<LinearHistogram>(*linear);
  }

  void add(uint64_t ns) {
    if (ns < min_) min_ = ns;
    if (ns > max_) max_ = ns;
    ++count_;
    sum_ += ns;
    histogram_->add(ns);
    if (linear_) linear_->add(ns);
  }

  // Adds the durations of other (of the same linear spec), as if each had
  // been added here: every figure comes out as exact as before.
  void merge(const DurationStats& other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ != 0 ? min_ : 0; }
  uint64_t max() const { return max_; }
  unsigned __int128 sum() const { return sum_; }
  // The exact mean with 3 decimals, "null" when empty.
  std::string mean_text() const;
  // Nearest-rank percentile (see LogLinearHistogram); only when count > 0.
  uint64_t percentile(unsigned permille) const {
    return histogram_->value_at_permille(permille, min(), max_);
  }
  const LogLinearHistogram& histogram() const { return *histogram_; }
  const LinearHistogram* linear() const { return linear_.get(); }

 private:
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;  // none yet: min() says 0
  uint64_t max_ = 0;
  unsigned __int128 sum_ = 0;
  std::unique_ptr<LogLinearHistogram> histogram_;
  std::unique_ptr<LinearHistogram> linear_;
};

}  // namespace usdt::report
