// Durations on the command line: --since/--until ("1.5s", "200ms", "10us",
// "500ns", a plain number meaning seconds) and their printing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace usdt::report {

// Parses a non-negative duration into nanoseconds, exactly (decimal digits
// are not rounded through a double). Digits below one nanosecond are cut.
// Fails on an empty string, a sign, an unknown unit or an overflow.
Result<uint64_t> parse_duration(std::string_view text);

// "12.000345678": seconds with nanosecond precision.
std::string format_seconds(uint64_t ns);

// "2026-11-29 10:00:00.000000000 UTC"
std::string wall_clock_text(uint64_t realtime_ns);

}  // namespace usdt::report
