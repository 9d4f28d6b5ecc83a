#include "report/wildcard.h"

#include <algorithm>

#include "common/glob_match.h"

namespace usdt::report {

bool wildcard_match(std::string_view pattern, std::string_view text) {
  return glob_match(pattern, text);
}

bool probe_pattern_matches(std::string_view pattern, std::string_view provider,
                           std::string_view name) {
  if (pattern.find(':') == std::string_view::npos) return wildcard_match(pattern, name);
  std::string full;
  full.reserve(provider.size() + 1 + name.size());
  full.append(provider).append(1, ':').append(name);
  return wildcard_match(pattern, full);
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
