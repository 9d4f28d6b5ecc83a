// Histogram buckets as every command's statistics hand them to the
// printers: the integers in [low, high), with 128-bit bounds so that the top
// power-of-two bucket of a 64-bit value ([2^63, 2^64)) and negative
// arguments are both exact.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace usdt::report {

// One bucket: the integers in [low, high). An open bound (below the first
// or above the last linear bucket) has no value.
struct HistogramBucket {
  __int128 low = 0;
  __int128 high = 0;
  bool has_low = true;
  bool has_high = true;
  uint64_t count = 0;
};

// Exact numbers as text: a 128-bit integer; numerator/denominator with 3
// decimals ("12.345", rounded half up; "null" for a zero denominator), for
// exact means and rates.
std::string int128_to_string(__int128 value);
std::string decimal_ratio(unsigned __int128 numerator, uint64_t denominator);
std::string decimal_ratio_signed(__int128 numerator, uint64_t denominator);

// The buckets from the first to the last non-empty one, as bpftrace prints
// them; empty when every bucket is empty.
std::vector<HistogramBucket> trim_empty_ends(const std::vector<HistogramBucket>& buckets);

// Unsigned log2 buckets from LogLinearHistogram::log2_counts().
std::vector<HistogramBucket> log2_buckets(const std::array<uint64_t, 65>& counts);

}  // namespace usdt::report
