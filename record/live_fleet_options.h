// The options of usdt-record for readers that follow a recording and for
// fleets and containers (docs/live-and-fleets.md):
//   --flush-interval TIME  how long events may wait in the writer before
//                          they reach the file (usdt-report top sees them
//                          then); default 1 s
//   --hostname NAME        the host label stored in the trace, instead of
//                          uname -n; also USDT_HOSTNAME (the option wins)
//   --mount-ns-of PID      paths in -e PROBE name files as process PID sees
//                          them (a container's mount namespace), reached
//                          through /proc/PID/root
// Parsed apart from record_options.cpp, which gives them their place on the
// command line and in --help.
#pragma once

#include <sys/types.h>

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"

namespace usdt::record {

constexpr uint32_t kDefaultFlushIntervalMs = 1000;
constexpr uint32_t kMinFlushIntervalMs = 10;
constexpr uint32_t kMaxFlushIntervalMs = 60000;
// The longest host label kept (a DNS name is at most 253 bytes).
constexpr size_t kMaxHostnameBytes = 255;

struct LiveFleetOptions {
  uint32_t flush_interval_ms = kDefaultFlushIntervalMs;
  std::string hostname;  // empty: uname -n
  std::optional<pid_t> mount_ns_of;
};

// The option values as typed, before they are checked.
struct LiveFleetTexts {
  std::string flush_interval, hostname, mount_ns_of;
};

// Adds the three options to desc, their values going to texts.
void add_live_fleet_options(boost::program_options::options_description& desc,
                            LiveFleetTexts* texts);

// Checks what was given (and USDT_HOSTNAME when --hostname was not): a
// usage error names the option and the value as typed.
Result<LiveFleetOptions> parse_live_fleet_options(const boost::program_options::variables_map& vm,
                                                  const LiveFleetTexts& texts,
                                                  const char* hostname_env);

// "250ms", "1s", "1.5s", "2" (seconds) as milliseconds; nullopt when the
// text is none of these or not a whole number of milliseconds.
std::optional<uint64_t> parse_milliseconds(const std::string& text);

}  // namespace usdt::record
