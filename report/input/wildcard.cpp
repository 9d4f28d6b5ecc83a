#include "report/input/wildcard.h"

#include <algorithm>

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

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace usdt::report
