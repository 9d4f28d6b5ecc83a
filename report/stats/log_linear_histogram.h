// A log-linear histogram of unsigned 64-bit values (durations in ns): each
// power-of-two range [2^k, 2^(k+1)) is split into 128 equal sub-buckets, and
// values below 128 get one bucket each, as in HdrHistogram. A bucket is at
// most 1/128 of its lower bound wide, so reporting a bucket's midpoint is off
// by at most 1/256 of the true value: kRelativeError. Memory is fixed
// (7424 counters, 58 KiB) whatever the number of values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace usdt::report {

class LogLinearHistogram {
 public:
  static constexpr int kSubBits = 7;
  static constexpr uint64_t kSubBuckets = 1u << kSubBits;  // 128
  static constexpr size_t kBucketCount = kSubBuckets + (64 - kSubBits) * kSubBuckets;
  static constexpr double kRelativeError = 1.0 / 256;

  LogLinearHistogram() : counts_(kBucketCount, 0) {}

  void add(uint64_t value) {
    ++counts_[bucket_of(value)];
    ++count_;
  }
  void merge(const LogLinearHistogram& other);

  uint64_t count() const { return count_; }

  // The nearest-rank percentile: the value of rank ceil(count * permille /
  // 1000) (at least 1) in sorted order, approximated by its bucket's
  // midpoint, clamped to [lowest, highest] (the exact extremes, which the
  // caller tracks). 0 when empty.
  uint64_t value_at_permille(unsigned permille, uint64_t lowest, uint64_t highest) const;

  // Counts per power of two: [0] is the value 0, [b] (1..64) is [2^(b-1), 2^b).
  std::array<uint64_t, 65> log2_counts() const;

  static size_t bucket_of(uint64_t value) {
    if (value < kSubBuckets) return static_cast<size_t>(value);
    int k = 63 - __builtin_clzll(value);  // >= kSubBits
    uint64_t top = value >> (k - kSubBits);  // in [128, 256)
    return kSubBuckets + static_cast<size_t>(k - kSubBits) * kSubBuckets +
           static_cast<size_t>(top - kSubBuckets);
  }
  static uint64_t bucket_low(size_t bucket);
  static uint64_t bucket_width(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
};

}  // namespace usdt::report
