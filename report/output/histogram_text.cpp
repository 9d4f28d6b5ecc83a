#include "report/output/histogram_text.h"

#include <algorithm>

namespace usdt::report {

namespace {

std::string short_number(__int128 value) {
  static const char kSuffix[] = "KMGTPE";
  if (value == 0) return "0";
  unsigned __int128 magnitude =
      value < 0 ? static_cast<unsigned __int128>(-(value + 1)) + 1 : static_cast<unsigned __int128>(value);
  int power = 0;
  while (power < 6 && magnitude % 1024 == 0) {
    magnitude /= 1024;
    ++power;
  }
  std::string out = int128_to_string(static_cast<__int128>(magnitude));
  if (value < 0) out.insert(out.begin(), '-');
  if (power > 0) out += kSuffix[power - 1];
  return out;
}

}  // namespace

std::string bucket_label(const HistogramBucket& b) {
  // Built with append: GCC 12 warns falsely (-Wrestrict) on "[" + string.
  std::string out;
  if (!b.has_low) {
    out.append("(..., ").append(short_number(b.high)).append(")");
  } else if (!b.has_high) {
    out.append("[").append(short_number(b.low)).append(", ...)");
  } else if (b.high == b.low + 1) {
    out.append("[").append(short_number(b.low)).append("]");
  } else {
    out.append("[").append(short_number(b.low)).append(", ").append(short_number(b.high)).append(")");
  }
  return out;
}

std::string render_histogram_text(const std::vector<HistogramBucket>& buckets) {
  constexpr uint64_t kBarWidth = 52;
  uint64_t largest = 0;
  size_t label_width = 16;
  for (const HistogramBucket& b : buckets) {
    largest = std::max(largest, b.count);
    label_width = std::max(label_width, bucket_label(b).size() + 1);
  }
  std::string out;
  for (const HistogramBucket& b : buckets) {
    std::string label = bucket_label(b);
    out += label;
    out.append(label_width - label.size(), ' ');
    std::string count = std::to_string(b.count);
    if (count.size() < 8) out.append(8 - count.size(), ' ');
    out += count;
    out += " |";
    uint64_t bar = largest == 0 ? 0 : static_cast<uint64_t>(
        static_cast<unsigned __int128>(b.count) * kBarWidth / largest);
    out.append(bar, '@');
    out.append(kBarWidth - bar, ' ');
    out += "|\n";
  }
  return out;
}

std::string render_histogram_text(const std::vector<HistogramBucket>& buckets, const std::string& indent) {
  const std::string bars = render_histogram_text(buckets);
  std::string out;
  for (size_t pos = 0; pos < bars.size();) {
    const size_t nl = bars.find('\n', pos);
    out += indent;
    out.append(bars, pos, nl - pos + 1);
    pos = nl + 1;
  }
  return out;
}

}  // namespace usdt::report
