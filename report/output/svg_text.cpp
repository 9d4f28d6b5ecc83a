#include "report/output/svg_text.h"

#include <cmath>
#include <cstdio>

#include "report/output/string_text.h"

namespace usdt::report {

void append_xml_text(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char u = static_cast<unsigned char>(s[i]);
    if (u >= 0x80) {
      const size_t n = utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\xef\xbf\xbd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (u) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += static_cast<char>(u);
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\xef\xbf\xbd";
        } else {
          out += static_cast<char>(u);
        }
    }
    ++i;
  }
}

std::string xml_text(std::string_view s) {
  std::string out;
  append_xml_text(out, s);
  return out;
}

std::string svg_number(double value) {
  if (!std::isfinite(value)) return "0";
  // In hundredths, rounded half away from zero, then written as an integer
  // and a fraction: no locale, no printf rounding of binary fractions.
  const long long hundredths = std::llround(value * 100.0);
  const bool negative = hundredths < 0;
  const unsigned long long a = static_cast<unsigned long long>(negative ? -hundredths : hundredths);
  std::string out = negative ? "-" : "";
  out += std::to_string(a / 100);
  const unsigned frac = static_cast<unsigned>(a % 100);
  if (frac != 0) {
    out += '.';
    out += static_cast<char>('0' + frac / 10);
    if (frac % 10 != 0) out += static_cast<char>('0' + frac % 10);
  }
  return out == "-0" ? "0" : out;
}

std::string duration_label(uint64_t ns) {
  static constexpr struct {
    uint64_t scale;
    const char* unit;
  } kUnits[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
  for (const auto& u : kUnits) {
    if (ns < u.scale && u.scale != 1) continue;
    const double v = static_cast<double>(ns) / static_cast<double>(u.scale);
    char buf[48];
    if (v >= 100 || u.scale == 1) {
      std::snprintf(buf, sizeof buf, "%.0f %s", v, u.unit);
    } else if (v >= 10) {
      std::snprintf(buf, sizeof buf, "%.1f %s", v, u.unit);
    } else {
      std::snprintf(buf, sizeof buf, "%.2f %s", v, u.unit);
    }
    std::string s = buf;
    // "1.50 ms" -> "1.5 ms", "2.00 s" -> "2 s"
    const size_t space = s.find(' ');
    if (s.find('.') < space) {
      size_t end = space;
      while (s[end - 1] == '0') --end;
      if (s[end - 1] == '.') --end;
      s.erase(end, space - end);
    }
    return s;
  }
  return "0 ns";
}

std::string grouped_count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace usdt::report
