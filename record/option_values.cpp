#include "record/option_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace usdt::record {
namespace {

constexpr double kMaxDurationSeconds = 10 * 365.25 * 24 * 3600;

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// One item of --string's list: argN sets its bit, a parameter's name is
// kept for the sites to match later.
Status add_string_arg(const std::string& value, std::string_view item, StringArgs& out) {
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
    return Status::success();
  }
  if (!ok) {
    return Error("--string " + value + ": '" + std::string(item) +
                 "' is not an argument (arg0 to arg11, or a parameter's name)");
  }
  out.arg_mask |= 1u << n;
  return Status::success();
}

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
    if (Status s = add_string_arg(value, rest.substr(0, comma), out); !s) return s.error();
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

Result<CallGraph> parse_call_graph(const std::string& text) {
  CallGraph graph;
  std::string_view mode = text;
  std::string_view value;
  bool has_value = false;
  if (size_t comma = mode.find(','); comma != std::string_view::npos) {
    value = mode.substr(comma + 1);
    mode = mode.substr(0, comma);
    has_value = true;
  }
  if (mode == "fp") {
    graph.mode = CallGraphMode::fp;
    if (!has_value) return graph;
    Result<uint32_t> depth =
        parse_count("--call-graph fp,DEPTH", std::string(value), kMaxCallGraphDepth);
    if (!depth) return depth.error();
    if (*depth == 0) return Error("--call-graph fp,DEPTH needs at least 1 frame, not 0");
    graph.depth = *depth;
    return graph;
  }
  if (mode == "dwarf") {
    graph.mode = CallGraphMode::dwarf;
    if (!has_value) return graph;
    // perf_event_attr::sample_stack_user: 8-byte aligned, below 64 KiB.
    Result<uint32_t> bytes = parse_count("--call-graph dwarf,BYTES", std::string(value), 65528);
    if (!bytes || *bytes == 0 || *bytes % 8 != 0) {
      return Error("--call-graph dwarf,BYTES must be a multiple of 8 from 8 to 65528, not '" +
                   std::string(value) + "'");
    }
    graph.stack_bytes = *bytes;
    return graph;
  }
  std::string hint = mode == "lbr" ? " (lbr needs hardware branch records of kernel samples; "
                                     "use fp or dwarf)"
                                   : "";
  return Error("--call-graph takes fp[,DEPTH] or dwarf[,BYTES], not '" + text + "'" + hint);
}

Result<CaptureMode> parse_capture_mode(const std::string& text) {
  if (text == "auto") return CaptureMode::automatic;
  if (text == "bpf") return CaptureMode::bpf;
  if (text == "sample") return CaptureMode::sample;
  return Error("--capture takes bpf, sample or auto, not '" + text + "'");
}

}  // namespace usdt::record
