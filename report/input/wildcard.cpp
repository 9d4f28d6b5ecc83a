#include "report/input/wildcard.h"

#include <algorithm>

#include "common/closest_match.h"
#include "common/glob_match.h"

namespace usdt::report {

bool wildcard_match(std::string_view pattern, std::string_view text) {
  return glob_match(pattern, text);
}

namespace {

bool pattern_matches_exactly(std::string_view pattern, std::string_view provider,
                             std::string_view name) {
  if (pattern.find(':') == std::string_view::npos) return wildcard_match(pattern, name);
  std::string full;
  full.reserve(provider.size() + 1 + name.size());
  full.append(provider).append(1, ':').append(name);
  return wildcard_match(pattern, full);
}

}  // namespace

bool probe_pattern_matches(std::string_view pattern, std::string_view provider,
                           std::string_view name) {
  if (pattern_matches_exactly(pattern, provider, name)) return true;
  // A C++ function probe's name carries its parameters ("ns::twice<int>(int)"):
  // the name without them selects it too, as on usdt-record's command line,
  // and so does the name alone ("ns::twice<int>").
  if (provider != "uprobe" && provider != "uretprobe") return false;
  // A C++ name holds "::", so a pattern with ':' may be the name alone.
  if (wildcard_match(pattern, name)) return true;
  if (name.find('(') == std::string_view::npos) return false;
  std::string without_parameters = std::string(pattern) + "(*";
  return pattern_matches_exactly(without_parameters, provider, name) ||
         wildcard_match(without_parameters, name);
}

size_t edit_distance(std::string_view a, std::string_view b) { return usdt::edit_distance(a, b); }

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  return usdt::closest_match(word, candidates);
}

}  // namespace usdt::report
