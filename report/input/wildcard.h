// Probe patterns on the report's command line: `*` matches any run of
// characters (also empty, also ':'), `?` exactly one. A pattern with a ':'
// is matched against "provider:name", one without against the name alone,
// so `--probe tick` and `--probe 'demo:*'` both select demo:tick.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace usdt::report {

// Whether text matches the whole glob pattern (common/glob_match.h, the
// same matching usdt-record applies to -e patterns).
bool wildcard_match(std::string_view pattern, std::string_view text);

// Whether a probe pattern (see above) selects provider:name. A function
// probe (provider uprobe or uretprobe) whose name has parameters is also
// selected by its name without them: uprobe:ns::twice<int> selects
// uprobe:ns::twice<int>(int); so does a pattern for the name alone, even
// with "::" in it (ns::twice<int>).
bool probe_pattern_matches(std::string_view pattern, std::string_view provider,
                           std::string_view name);

// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to word, or "" when none is close enough (distance
// more than a third of the word's length, at least 2).
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace usdt::report
