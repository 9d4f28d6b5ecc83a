#include "record/live_fleet_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace usdt::record {
namespace po = boost::program_options;

namespace {

// A label that reports can print as it is: printable ASCII without spaces
// (a host name, a container's or a pod's name).
bool is_host_label(const std::string& name) {
  return !name.empty() && name.size() <= kMaxHostnameBytes &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isgraph(static_cast<unsigned char>(c)) != 0; });
}

Result<std::string> checked_hostname(const std::string& name, const std::string& source) {
  if (is_host_label(name)) return name;
  return Error(source + " must be 1 to " + std::to_string(kMaxHostnameBytes) +
               " printable characters without spaces, not '" + name + "'");
}

}  // namespace

std::optional<uint64_t> parse_milliseconds(const std::string& text) {
  std::string_view number = text;
  uint64_t scale = 1000;  // to milliseconds from seconds
  if (number.size() > 2 && number.substr(number.size() - 2) == "ms") {
    number.remove_suffix(2);
    scale = 1;
  } else if (number.size() > 1 && number.back() == 's') {
    number.remove_suffix(1);
  }
  // Digits, then at most three decimals of a second: exact, without a double.
  size_t dot = number.find('.');
  std::string_view whole = number.substr(0, dot);
  std::string_view decimals = dot == std::string_view::npos ? "" : number.substr(dot + 1);
  if (whole.empty() && decimals.empty()) return std::nullopt;
  uint64_t value = 0;
  if (!whole.empty()) {
    auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), value);
    if (ec != std::errc() || p != whole.data() + whole.size() || value > 1'000'000'000) {
      return std::nullopt;
    }
  }
  if (dot != std::string_view::npos && (decimals.empty() || scale == 1)) return std::nullopt;
  if (decimals.size() > 3) return std::nullopt;
  uint64_t fraction = 0;
  for (char c : decimals) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    fraction = fraction * 10 + static_cast<uint64_t>(c - '0');
  }
  for (size_t i = decimals.size(); i < 3; ++i) fraction *= 10;
  return value * scale + (scale == 1000 ? fraction : 0);
}

void add_live_fleet_options(po::options_description& desc, LiveFleetTexts* texts) {
  desc.add_options()
      ("flush-interval", po::value<std::string>(&texts->flush_interval)->value_name("TIME"),
       "longest time events wait in the recorder before they reach the file, where "
       "usdt-report top and --follow see them: 10ms to 60s (250ms, 1s; default 1s)")
      ("hostname", po::value<std::string>(&texts->hostname)->value_name("NAME"),
       "the host label stored in the trace (default: USDT_HOSTNAME, else uname -n)")
      ("mount-ns-of", po::value<std::string>(&texts->mount_ns_of)->value_name("PID"),
       "paths in -e PROBE are as process PID sees them (its mount namespace: a "
       "container's), opened through /proc/PID/root");
}

Result<LiveFleetOptions> parse_live_fleet_options(const po::variables_map& vm,
                                                  const LiveFleetTexts& texts,
                                                  const char* hostname_env) {
  LiveFleetOptions o;
  if (vm.count("flush-interval") != 0) {
    std::optional<uint64_t> ms = parse_milliseconds(texts.flush_interval);
    if (!ms || *ms < kMinFlushIntervalMs || *ms > kMaxFlushIntervalMs) {
      return Error("--flush-interval must be a time from 10ms to 60s (250ms, 1s, 1.5s), not '" +
                   texts.flush_interval + "'");
    }
    o.flush_interval_ms = static_cast<uint32_t>(*ms);
  }
  if (vm.count("hostname") != 0) {
    Result<std::string> name = checked_hostname(texts.hostname, "--hostname");
    if (!name) return name.error();
    o.hostname = *name;
  } else if (hostname_env != nullptr && *hostname_env != '\0') {
    Result<std::string> name = checked_hostname(hostname_env, "USDT_HOSTNAME");
    if (!name) return name.error();
    o.hostname = *name;
  }
  if (vm.count("mount-ns-of") != 0) {
    const std::string& t = texts.mount_ns_of;
    long pid = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), pid);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size() || pid <= 0 ||
        pid > 0x7fffffff) {
      return Error("invalid PID '" + t + "' in --mount-ns-of");
    }
    o.mount_ns_of = static_cast<pid_t>(pid);
  }
  return o;
}

}  // namespace usdt::record
