// JSON text helpers shared by the commands: string escaping (RFC 8259) and
// numbers that JSON can hold.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace usdt::report {

// Appends s as a quoted JSON string (RFC 8259): '"', '\\' and control
// characters are escaped; valid UTF-8 is copied; each byte that is not part
// of a valid UTF-8 sequence (names and strings come from the traced program
// and may be any bytes) becomes \ufffd, so the output is always valid JSON.
void append_json_string(std::string& out, std::string_view s);
std::string json_string(std::string_view s);

// A double as a JSON number; NaN and infinities, which JSON cannot hold,
// become null.
std::string json_double(double value);

}  // namespace usdt::report
