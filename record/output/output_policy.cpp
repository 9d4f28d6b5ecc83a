#include "record/output/output_policy.h"

#include <charconv>
#include <cstring>
#include <utility>

namespace usdt::record {
namespace {

// The number at the start of text and the suffix after it.
bool split_number(const std::string& text, uint64_t* number, std::string* suffix) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (p == text.data() || ec != std::errc()) return false;
  *number = n;
  *suffix = text.substr(static_cast<size_t>(p - text.data()));
  return true;
}

// n * unit, or false on overflow.
bool scaled(uint64_t n, uint64_t unit, uint64_t* out) {
  if (n != 0 && unit > UINT64_MAX / n) return false;
  *out = n * unit;
  return true;
}

// The bytes a size suffix stands for (K, M, G, T: powers of 1024, with an
// optional B or iB), 0 when it is not one.
uint64_t size_unit(const std::string& suffix) {
  static const std::pair<const char*, uint64_t> kUnits[] = {{"", 1},
                                                            {"B", 1},
                                                            {"K", 1ull << 10},
                                                            {"KB", 1ull << 10},
                                                            {"KiB", 1ull << 10},
                                                            {"M", 1ull << 20},
                                                            {"MB", 1ull << 20},
                                                            {"MiB", 1ull << 20},
                                                            {"G", 1ull << 30},
                                                            {"GB", 1ull << 30},
                                                            {"GiB", 1ull << 30},
                                                            {"T", 1ull << 40},
                                                            {"TB", 1ull << 40},
                                                            {"TiB", 1ull << 40}};
  for (const auto& [name, unit] : kUnits) {
    if (suffix == name) return unit;
  }
  return 0;
}

// The nanoseconds a time suffix stands for, 0 when it is not one (lower
// case, as perf's: 5m is five minutes, 5M five mebibytes).
uint64_t time_unit(const std::string& suffix) {
  static const std::pair<const char*, uint64_t> kUnits[] = {{"ns", 1},
                                                            {"us", 1000},
                                                            {"ms", 1000000},
                                                            {"s", 1000000000ull},
                                                            {"m", 60000000000ull},
                                                            {"h", 3600000000000ull},
                                                            {"d", 86400000000000ull}};
  for (const auto& [name, unit] : kUnits) {
    if (suffix == name) return unit;
  }
  return 0;
}

bool looks_like_time(const std::string& text) {
  uint64_t n = 0;
  std::string suffix;
  return split_number(text, &n, &suffix) && time_unit(suffix) != 0;
}

}  // namespace

Result<uint64_t> parse_size(const std::string& text, const char* option) {
  uint64_t n = 0, bytes = 0;
  std::string suffix;
  const uint64_t unit = split_number(text, &n, &suffix) ? size_unit(suffix) : 0;
  if (unit == 0 || !scaled(n, unit, &bytes) || bytes == 0) {
    return Error(std::string(option) + " takes a size such as 100M, 512K or 2G, not '" + text +
                 "'");
  }
  return bytes;
}

Result<uint64_t> parse_duration_ns(const std::string& text, const char* option, bool zero_ok) {
  uint64_t n = 0, ns = 0;
  std::string suffix;
  const uint64_t unit = split_number(text, &n, &suffix) ? time_unit(suffix) : 0;
  if (unit == 0 || !scaled(n, unit, &ns) || (ns == 0 && !zero_ok)) {
    return Error(std::string(option) + " takes a duration such as 500ms, 30s, 10m or 1h, not '" +
                 text + "'");
  }
  return ns;
}

Result<SwitchOutput> parse_switch_output(const std::string& text) {
  SwitchOutput out;
  if (text == "signal") {
    out.kind = SwitchKind::signal;
    return out;
  }
  if (looks_like_time(text)) {
    Result<uint64_t> ns = parse_duration_ns(text, "--switch-output");
    if (!ns) return ns.error();
    out.kind = SwitchKind::time;
    out.ns = *ns;
    return out;
  }
  Result<uint64_t> bytes = parse_size(text, "--switch-output");
  if (!bytes) {
    return Error("--switch-output takes signal, a size (100M) or a time (10m), not '" + text + "'");
  }
  out.kind = SwitchKind::size;
  out.bytes = *bytes;
  return out;
}

Result<FlightRecorder> parse_flight_recorder(const std::string& text) {
  FlightRecorder out;
  out.enabled = true;
  if (looks_like_time(text)) {
    Result<uint64_t> ns = parse_duration_ns(text, "--flight-recorder");
    if (!ns) return ns.error();
    out.ns = *ns;
    out.bytes = kDefaultFlightRecorderCap;
    return out;
  }
  Result<uint64_t> bytes = parse_size(text, "--flight-recorder");
  if (!bytes) {
    return Error("--flight-recorder takes a size (64M) or a duration (30s), not '" + text + "'");
  }
  out.bytes = *bytes;
  return out;
}

Result<ControlSpec> parse_control(const std::string& text) {
  if (text.compare(0, 5, "fifo:") != 0 || text.size() == 5) {
    return Error("--control takes fifo:PATH[,ACK-PATH], not '" + text + "'");
  }
  ControlSpec out;
  std::string rest = text.substr(5);
  size_t comma = rest.find(',');
  out.path = rest.substr(0, comma);
  if (comma != std::string::npos) out.ack_path = rest.substr(comma + 1);
  if (out.path.empty() || (comma != std::string::npos && out.ack_path.empty())) {
    return Error("--control takes fifo:PATH[,ACK-PATH], not '" + text + "'");
  }
  return out;
}

Status parse_max_snapshots(const std::string& text, OutputPolicy& policy) {
  const size_t slash = text.find('/');
  const std::string count = text.substr(0, slash);
  uint32_t n = 0;
  auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
  bool ok = !count.empty() && ec == std::errc() && p == count.data() + count.size() && n > 0;
  uint64_t minutes = 1;
  if (ok && slash != std::string::npos) {
    const std::string per = text.substr(slash + 1);
    auto [q, ec2] = std::from_chars(per.data(), per.data() + per.size(), minutes);
    ok = !per.empty() && ec2 == std::errc() && q == per.data() + per.size() && minutes > 0 &&
         minutes <= 10ull * 366 * 24 * 60;
  }
  if (!ok) {
    return Error(
        "--max-snapshots takes N or N/MINUTES (at most N trigger snapshots in any "
        "MINUTES minutes), not '" +
        text + "'");
  }
  policy.max_snapshots = n;
  policy.snapshot_period_ns = minutes * 60000000000ull;
  return Status::success();
}

Status check_output_policy(const OutputPolicy& p, bool call_graph) {
  if (p.max_size != 0 && (p.series() || p.flight.enabled)) {
    return Error(
        "--max-size caps one trace file: with --switch-output use --max-files, with "
        "--flight-recorder the ring's size");
  }
  if (p.series() && p.flight.enabled) {
    return Error("give only one of --switch-output and --flight-recorder");
  }
  if (p.max_files != 0 && !p.series() && !p.flight.enabled) {
    return Error("--max-files needs --switch-output or --flight-recorder");
  }
  if (!p.triggers.empty() && !p.flight.enabled) {
    return Error(
        "--snapshot-on needs --flight-recorder SIZE|DURATION: a snapshot is "
        "taken from what the flight recorder holds");
  }
  if ((p.before_ns || p.after_ns != 0) && p.triggers.empty()) {
    return Error("--before and --after set the window of --snapshot-on triggers");
  }
  if (p.control && !p.flight.enabled && p.switch_output.kind == SwitchKind::none) {
    return Error(
        "--control needs --flight-recorder or --switch-output (its 'snapshot' "
        "command takes a snapshot, or switches to the next file)");
  }
  if (call_graph && (p.series() || p.flight.enabled)) {
    return Error(
        "-g cannot be combined with --switch-output or --flight-recorder yet: the "
        "symbols of the files in stacks are written at the end of a recording only");
  }
  return Status::success();
}

}  // namespace usdt::record
