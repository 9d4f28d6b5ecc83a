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


std::string decimal_ratio(unsigned __int128 numerator, uint64_t denominator) {
  if (denominator == 0) return "null";
  // Round half up at the third decimal.
  unsigned __int128 thousandths = (numerator * 1000 + denominator / 2) / denominator;
  std::string whole = int128_to_string(static_cast<__int128>(thousandths / 1000));
  unsigned frac = static_cast<unsigned>(thousandths % 1000);
  char digits[4] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                    static_cast<char>('0' + frac % 10), 0};
  return whole + "." + digits;
}

std::string decimal_ratio_signed(__int128 numerator, uint64_t denominator) {
  if (numerator >= 0) return decimal_ratio(static_cast<unsigned __int128>(numerator), denominator);
  std::string magnitude = decimal_ratio(static_cast<unsigned __int128>(-numerator), denominator);
  return magnitude == "0.000" ? magnitude : "-" + magnitude;
}

}  // namespace usdt::report
