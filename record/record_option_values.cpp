#include "record/record_option_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace usdt::record {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The longest --duration: the recording timer needs whole seconds in a
// time_t; ten years is long enough for any recording.
constexpr double kMaxDurationSeconds = 10 * 365.25 * 24 * 3600;

}  // namespace

Result<std::vector<pid_t>> parse_pids(const std::vector<std::string>& values) {
  std::vector<pid_t> pids;
  for (const auto& value : values) {
    std::string_view rest = value;
    while (true) {
      size_t comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      long pid = 0;
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), pid);
      if (item.empty() || ec != std::errc() || p != item.data() + item.size() || pid <= 0 ||
          pid > 0x7fffffff) {
        return Error("invalid PID '" + std::string(item) + "' in -p " + value);
      }
      pids.push_back(static_cast<pid_t>(pid));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return pids;
}

Result<StringArgs> parse_string_args(const std::string& value) {
  size_t eq = value.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
    return Error("--string needs PROBE=ARG[,ARG...] (argN or a parameter's name), not '" + value +
                 "'");
  }
  StringArgs out;
  Result<ProbeSpec> probe = ProbeSpec::parse(std::string_view(value).substr(0, eq));
  if (!probe) return probe.error().context("--string");
  out.probe = std::move(*probe);
  std::string_view rest = std::string_view(value).substr(eq + 1);
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    unsigned n = 0;
    const bool numbered = item.size() > 3 && item.substr(0, 3) == "arg" &&
                          std::isdigit(static_cast<unsigned char>(item[3]));
    bool ok = numbered;
    if (ok) {
      auto [p, ec] = std::from_chars(item.data() + 3, item.data() + item.size(), n);
      ok = ec == std::errc() && p == item.data() + item.size() && n < 12;
    }
    if (!numbered && is_identifier(item)) {
      // A parameter's name (uprobes with DWARF), matched against the sites later.
      out.arg_names.emplace_back(item);
    } else if (!ok) {
      return Error("--string " + value + ": '" + std::string(item) +
                   "' is not an argument (arg0 to arg11, or a parameter's name)");
    } else {
      out.arg_mask |= 1u << n;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

Result<uint32_t> parse_count(const std::string& option, const std::string& text, uint32_t max) {
  uint32_t value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || value > max) {
    return Error(option + " must be a whole number up to " + std::to_string(max) + ", not '" +
                 text + "'");
  }
  return value;
}

Result<double> parse_duration(const std::string& text) {
  double value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !(value > 0) ||
      !(value <= kMaxDurationSeconds)) {
    return Error("--duration must be a number of seconds above 0 and at most " +
                 std::to_string(static_cast<uint64_t>(kMaxDurationSeconds)) +
                 " (ten years), not '" + text + "'");
  }
  return value;
}

}  // namespace usdt::record
