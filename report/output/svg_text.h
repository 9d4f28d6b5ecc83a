// Text for SVG and HTML files: XML escaping that always gives a well-formed
// document, and numbers written the same way on every machine (golden files
// compare them byte for byte).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace usdt::report {

// s escaped for XML text and attribute values (& < > " '), as valid UTF-8:
// a byte that is not part of valid UTF-8, and a control character XML 1.0
// forbids, becomes U+FFFD.
void append_xml_text(std::string& out, std::string_view s);
std::string xml_text(std::string_view s);

// A coordinate with at most two decimals, trailing zeros dropped ("12.5",
// "3", "0.07"), so that output does not depend on the C library's rounding
// of long fractions.
std::string svg_number(double value);

// "1.5 ms", "230 us", "4 s": a duration in ns with three significant digits.
std::string duration_label(uint64_t ns);

// "12,345,678"
std::string grouped_count(uint64_t n);

}  // namespace usdt::report
