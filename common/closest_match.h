// "Did you mean ...?": the names closest to a misspelt one, by edit
// distance. Both tools suggest this way: usdt-report for commands and
// probes, usdt-record for options and probes that match nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace usdt {

// Levenshtein distance: insertions, deletions and substitutions of one byte.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to word, or "" when none is close enough: the
// distance may be at most a third of the word's length, and at least 2.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// Up to `most` candidates close enough to word (as closest_match judges),
// nearest first; equally near ones in the order given.
std::vector<std::string> closest_matches(std::string_view word,
                                         const std::vector<std::string>& candidates, size_t most);

// A Boost.Program_options error turned into our usage message: an unknown
// option gets "(did you mean '--string'?)" when one of known_options (with
// their dashes: "--string", "-e") is close; other messages pass unchanged.
std::string suggest_option(const std::string& message,
                           const std::vector<std::string>& known_options);

}  // namespace usdt
