#include "report/output/arg_format.h"

#include <charconv>
#include <cmath>

#include "report/input/probe_catalog.h"
#include "report/output/json_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

void append_arg(OutputBuffer& out, uint64_t raw, ArgType type, bool json) {
  switch (type) {
    case ArgType::signed_int: out.append_int(static_cast<int64_t>(raw)); return;
    case ArgType::unsigned_int:
    case ArgType::string:  // not a number: callers print strings apart
      out.append_int(raw);
      return;
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
    case ArgType::unsigned_int:
    case ArgType::string: r = std::to_chars(buf, buf + sizeof buf, raw); break;
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

std::string event_arg_text(const format::Event& e, int i, ArgType type, bool json) {
  if (!e.has_arg(i)) return "null";
  if (e.is_string(i)) {
    const format::StringArg& s = e.string_arg(i);
    return json ? json_string(s.bytes) : text_string(s.bytes, s.truncated);
  }
  return arg_text(e.args[i], type, json);
}

bool any_truncated_string(const format::Event& e) {
  if (e.string_mask == 0) return false;
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    if (e.is_string(i) && e.has_arg(i) && e.string_arg(i).truncated) return true;
  }
  return false;
}

void write_truncated_args(JsonWriter& w, const format::Event& e) {
  if (!any_truncated_string(e)) return;
  w.key("truncated_args").begin_array();
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    if (e.is_string(i) && e.has_arg(i) && e.string_arg(i).truncated) w.sint(i);
  }
  w.end_array();
}

}  // namespace usdt::report
