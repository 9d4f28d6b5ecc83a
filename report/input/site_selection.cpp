#include "report/input/site_selection.h"

#include <set>

namespace usdt::report {

Result<std::vector<uint32_t>> sites_matching(const ProbeCatalog& catalog, const std::string& pattern) {
  std::vector<uint32_t> probes = catalog.probes_matching(pattern);
  if (probes.empty()) return Error(unknown_probe_message(pattern, catalog));
  std::vector<uint32_t> sites;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    for (uint32_t p : probes) {
      if (catalog.site(s).probe == p) sites.push_back(s);
    }
  }
  return sites;
}

Status check_arg_name(const ArgRef& arg, const ProbeCatalog& catalog, const std::vector<uint32_t>& sites,
                      const char* option) {
  if (arg.name.empty()) return Status::success();
  std::set<std::string> names;
  for (uint32_t s : sites) {
    const SiteInfo& site = catalog.site(s);
    if (site.arg_named(arg.name) >= 0) return Status::success();
    for (const std::string& n : site.arg_names) {
      if (!n.empty()) names.insert(n);
    }
  }
  std::string msg = std::string(option) + " " + arg.name + ": no selected probe has an argument of that name";
  if (names.empty()) return Error(msg + "; their arguments have no names: use argN");
  msg += "; names there:";
  for (const std::string& n : names) msg += " " + n;
  return Error(msg);
}

}  // namespace usdt::report
