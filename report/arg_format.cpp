#include "report/arg_format.h"

#include <charconv>
#include <cmath>

#include "report/arg_histogram.h"

namespace usdt::report {

void append_arg(OutputBuffer& out, uint64_t raw, ArgType type, bool json) {
  switch (type) {
    case ArgType::signed_int: out.append_int(static_cast<int64_t>(raw)); return;
    case ArgType::unsigned_int: out.append_int(raw); return;
    case ArgType::float32:
    case ArgType::float64: {
      double d = arg_as_double(raw, type);
      if (json && !std::isfinite(d)) {
        out.append("null");
      } else if (type == ArgType::float32) {
        out.append_float(static_cast<float>(d));
      } else {
        out.append_double(d);
      }
      return;
    }
  }
}

char* put_float_arg(char* p, uint64_t raw, ArgType type, bool json) {
  double d = arg_as_double(raw, type);
  if (json && !std::isfinite(d)) return put(p, std::string_view("null"));
  if (type == ArgType::float32) return std::to_chars(p, p + kMaxArgChars, static_cast<float>(d)).ptr;
  return std::to_chars(p, p + kMaxArgChars, d).ptr;
}

std::string arg_text(uint64_t raw, ArgType type, bool json) {
  char buf[40];
  std::to_chars_result r{};
  switch (type) {
    case ArgType::signed_int: r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(raw)); break;
    case ArgType::unsigned_int: r = std::to_chars(buf, buf + sizeof buf, raw); break;
    case ArgType::float32:
    case ArgType::float64: {
      double d = arg_as_double(raw, type);
      if (json && !std::isfinite(d)) return "null";
      r = type == ArgType::float32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d))
                                   : std::to_chars(buf, buf + sizeof buf, d);
      break;
    }
  }
  return std::string(buf, r.ptr);
}

}  // namespace usdt::report
