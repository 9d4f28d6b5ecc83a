#include "pairing/pairing_rules.h"

#include <map>

namespace usdt::pairing {

std::vector<uint16_t> pair_classes_by_file(const std::vector<SiteRole>& roles,
                                           const std::vector<std::string>& path_of_site) {
  std::map<std::string, uint16_t> classes;
  for (size_t s = 0; s < roles.size(); ++s) {
    if (roles[s] == SiteRole::none) continue;
    if (s >= path_of_site.size() || path_of_site[s].empty()) return {};  // a USDT probe
    classes.emplace(path_of_site[s], 0);
  }
  if (classes.size() < 2 || classes.size() > 0xffff) return {};
  uint16_t next = 0;
  for (auto& [path, cls] : classes) cls = ++next;
  std::vector<uint16_t> out(roles.size(), 0);
  for (size_t s = 0; s < roles.size(); ++s) {
    if (roles[s] != SiteRole::none) out[s] = classes[path_of_site[s]];
  }
  return out;
}

}  // namespace usdt::pairing
