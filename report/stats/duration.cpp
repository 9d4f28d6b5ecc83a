#include "report/stats/duration.h"

#include <ctime>

#include <charconv>

namespace usdt::report {

Result<uint64_t> parse_duration(std::string_view text) {
  auto bad = [&](const char* why) {
    return Error("invalid duration '" + std::string(text) + "': " + why +
                 " (examples: 1.5s, 200ms, 10us, 500ns)");
  };
  size_t i = 0;
  uint64_t whole = 0;
  size_t whole_digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (whole > (UINT64_MAX - digit) / 10) return bad("too large");
    whole = whole * 10 + digit;
    ++whole_digits;
    ++i;
  }
  // Up to 9 fraction digits in units of 1e-9 of the unit.
  uint64_t fraction = 0;
  size_t fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (fraction_digits < 9) {
        fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
        ++fraction_digits;
      }
      ++i;
    }
    if (fraction_digits == 0 && whole_digits == 0) return bad("no digits");
  }
  if (whole_digits == 0 && fraction_digits == 0) return bad("no digits");
  for (size_t d = fraction_digits; d < 9; ++d) fraction *= 10;

  std::string_view unit = text.substr(i);
  uint64_t scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1000000000ull;
  } else if (unit == "ms") {
    scale = 1000000ull;
  } else if (unit == "us") {
    scale = 1000ull;
  } else if (unit == "ns") {
    scale = 1;
  } else {
    return bad("unknown unit");
  }
  if (whole > UINT64_MAX / scale) return bad("too large");
  uint64_t ns = whole * scale;
  // fraction (< 1e9) * scale (<= 1e9) fits in 64 bits.
  uint64_t frac_ns = fraction * scale / 1000000000ull;
  if (ns > UINT64_MAX - frac_ns) return bad("too large");
  return ns + frac_ns;
}

std::string format_seconds(uint64_t ns) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, ns / 1000000000ull);
  std::string out(buf, r.ptr);
  out += '.';
  uint64_t frac = ns % 1000000000ull;
  char digits[9];
  for (int d = 8; d >= 0; --d) {
    digits[d] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out.append(digits, 9);
  return out;
}

std::string wall_clock_text(uint64_t realtime_ns) {
  std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1000000000ull);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%09llu UTC", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<unsigned long long>(realtime_ns % 1000000000ull));
  return buf;
}

}  // namespace usdt::report
