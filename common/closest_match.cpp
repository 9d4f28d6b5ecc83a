#include "common/closest_match.h"

#include <algorithm>

namespace usdt {
namespace {

size_t distance_limit(std::string_view word) { return std::max<size_t>(2, word.size() / 3); }

}  // namespace

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
  std::vector<std::string> best = closest_matches(word, candidates, 1);
  return best.empty() ? std::string() : best.front();
}

std::vector<std::string> closest_matches(std::string_view word,
                                         const std::vector<std::string>& candidates, size_t most) {
  const size_t limit = distance_limit(word);
  std::vector<std::pair<size_t, size_t>> near;  // distance, index
  for (size_t i = 0; i < candidates.size(); ++i) {
    size_t d = edit_distance(word, candidates[i]);
    if (d <= limit) near.emplace_back(d, i);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : near) {
    if (out.size() == most) break;
    if (std::find(out.begin(), out.end(), candidates[i]) == out.end()) out.push_back(candidates[i]);
  }
  return out;
}

std::string suggest_option(const std::string& message,
                           const std::vector<std::string>& known_options) {
  // Boost's text: "unrecognised option '--strng'" (and "unknown option" in
  // some versions).
  if (message.find("unrecognised option") == std::string::npos &&
      message.find("unknown option") == std::string::npos) {
    return message;
  }
  size_t open = message.find('\'');
  size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
  if (close == std::string::npos) return message;
  std::string option = message.substr(open + 1, close - open - 1);
  // "--strng=x": the name alone.
  option = option.substr(0, option.find('='));
  std::string guess = closest_match(option, known_options);
  if (guess.empty()) return message;
  return message + " (did you mean '" + guess + "'?)";
}

}  // namespace usdt
