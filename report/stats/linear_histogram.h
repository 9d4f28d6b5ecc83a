// Linear buckets for `--linear MIN,MAX,STEP` (bpftrace's lhist): [MIN, MAX)
// cut into STEP-wide buckets, plus one bucket below MIN and one from MAX up.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "report/input/query.h"
#include "report/stats/histogram_bucket.h"

namespace usdt::report {

class LinearHistogram {
 public:
  explicit LinearHistogram(LinearSpec spec);

  void add(__int128 value) {
    if (value < spec_.min) {
      ++counts_.front();
    } else if (value >= spec_.max) {
      ++counts_.back();
    } else {
      ++counts_[1 + static_cast<size_t>((value - spec_.min) / spec_.step)];
    }
  }

  // Adds other's counts; other has the same spec.
  void merge(const LinearHistogram& other);

  // Every bucket, including the empty ones and the two open-ended ones.
  std::vector<HistogramBucket> buckets() const;

 private:
  LinearSpec spec_;
  std::vector<uint64_t> counts_;  // [below MIN], buckets..., [MAX and above]
};

}  // namespace usdt::report
