#include "report/output/json_text.h"

#include <charconv>
#include <cmath>

#include "report/stats/histogram_bucket.h"
#include "report/output/string_text.h"

namespace usdt::report {

void append_json_string(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      size_t n = utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\\ufffd";  // an invalid byte: the replacement character
        ++i;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

std::string json_double(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

}  // namespace usdt::report
