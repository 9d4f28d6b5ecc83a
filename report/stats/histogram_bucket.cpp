#include "report/stats/histogram_bucket.h"

namespace usdt::report {

std::string int128_to_string(__int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(-(value + 1)) + 1 : static_cast<unsigned __int128>(value);
  char buf[48];
  char* p = buf + sizeof buf;
  while (magnitude != 0) {
    *--p = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  }
  if (negative) *--p = '-';
  return std::string(p, buf + sizeof buf);
}


std::vector<HistogramBucket> trim_empty_ends(const std::vector<HistogramBucket>& buckets) {
  size_t first = 0;
  while (first < buckets.size() && buckets[first].count == 0) ++first;
  if (first == buckets.size()) return {};
  size_t last = buckets.size() - 1;
  while (buckets[last].count == 0) --last;
  return std::vector<HistogramBucket>(buckets.begin() + static_cast<std::ptrdiff_t>(first),
                                      buckets.begin() + static_cast<std::ptrdiff_t>(last) + 1);
}


std::vector<HistogramBucket> log2_buckets(const std::array<uint64_t, 65>& counts) {
  std::vector<HistogramBucket> out;
  out.reserve(counts.size());
  for (size_t b = 0; b < counts.size(); ++b) {
    HistogramBucket bucket;
    if (b == 0) {
      bucket.low = 0;
      bucket.high = 1;
    } else {
      bucket.low = static_cast<__int128>(1) << (b - 1);
      bucket.high = static_cast<__int128>(1) << b;
    }
    bucket.count = counts[b];
    out.push_back(bucket);
  }
  return out;
}


}  // namespace usdt::report
