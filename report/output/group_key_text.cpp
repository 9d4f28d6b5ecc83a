#include "report/output/group_key_text.h"

#include <algorithm>
#include <unordered_map>

#include "report/output/arg_format.h"
#include "report/output/json_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

std::string group_key_text(const GroupKey& g, bool json) {
  if (!g.present) return json ? "null" : "(argument missing)";
  if (g.type == ArgType::string)
    return json ? json_string(g.text) : text_label(g.text, g.truncated, kGroupLabelChars);
  return arg_text(g.value, g.type, json);
}

std::vector<std::string> group_labels(const std::vector<const GroupKey*>& keys) {
  std::vector<size_t> width(keys.size(), kGroupLabelChars);
  std::vector<std::string> labels(keys.size());
  auto label = [&](size_t i) {
    const GroupKey& g = *keys[i];
    return g.present && g.type == ArgType::string ? middle_label(g.text, g.truncated, width[i])
                                                  : group_key_text(g, false);
  };
  for (size_t i = 0; i < keys.size(); ++i) labels[i] = label(i);
  // Labels seen twice: both widen until they differ (distinct keys differ
  // in full, so this ends).
  for (bool again = true; again;) {
    again = false;
    std::unordered_map<std::string, std::vector<size_t>> seen;
    for (size_t i = 0; i < keys.size(); ++i) seen[labels[i]].push_back(i);
    for (const auto& [text, same] : seen) {
      if (same.size() < 2) continue;
      for (size_t i : same) {
        const size_t full = keys[i]->text.size() * 4 + 8;
        if (width[i] >= full) continue;
        width[i] = std::min(full, width[i] * 2);
        labels[i] = label(i);
        again = true;
      }
    }
  }
  return labels;
}

}  // namespace usdt::report
