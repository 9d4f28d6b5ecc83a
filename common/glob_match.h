// Shell-style wildcard matching for probe patterns: '*' matches any run of
// characters (also none), '?' exactly one; every other character is literal.
#pragma once

#include <string_view>

namespace usdt {

// Whether text matches pattern as a whole. Linear in practice: backtracks
// only to the last '*', so no pattern can blow up.
bool glob_match(std::string_view pattern, std::string_view text);

// Whether the pattern contains a wildcard.
bool has_wildcard(std::string_view pattern);

}  // namespace usdt
