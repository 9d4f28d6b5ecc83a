#include "report/stats/log_linear_histogram.h"

#include <algorithm>

namespace usdt::report {

void LogLinearHistogram::merge(const LogLinearHistogram& other) {
  for (size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
}

uint64_t LogLinearHistogram::bucket_low(size_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  size_t group = (bucket - kSubBuckets) / kSubBuckets;
  uint64_t sub = (bucket - kSubBuckets) % kSubBuckets;
  return (kSubBuckets + sub) << group;
}

uint64_t LogLinearHistogram::bucket_width(size_t bucket) {
  if (bucket < kSubBuckets) return 1;
  return uint64_t{1} << ((bucket - kSubBuckets) / kSubBuckets);
}

uint64_t LogLinearHistogram::value_at_permille(unsigned permille, uint64_t lowest,
                                               uint64_t highest) const {
  if (count_ == 0) return 0;
  unsigned __int128 scaled = static_cast<unsigned __int128>(count_) * permille;
  uint64_t rank = static_cast<uint64_t>((scaled + 999) / 1000);
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      uint64_t mid = bucket_low(i) + (bucket_width(i) - 1) / 2;
      return std::clamp(mid, lowest, highest);
    }
  }
  return highest;
}

std::array<uint64_t, 65> LogLinearHistogram::log2_counts() const {
  std::array<uint64_t, 65> out{};
  for (size_t i = 0; i < kBucketCount; ++i) {
    if (counts_[i] == 0) continue;
    uint64_t low = bucket_low(i);
    size_t b = low == 0 ? 0 : static_cast<size_t>(64 - __builtin_clzll(low));
    out[b] += counts_[i];
  }
  return out;
}

}  // namespace usdt::report
