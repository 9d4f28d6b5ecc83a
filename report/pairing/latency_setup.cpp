#include "report/pairing/latency_setup.h"

#include <algorithm>
#include <map>
#include <string>

#include "report/input/site_selection.h"

namespace usdt::report {
namespace {

// When every start and end is a function probe (uprobe:work, uretprobe:work),
// a return pairs only with entries in the same file: each probed file gets
// its own pairing class. Mixed pairs (a USDT start, a uretprobe end) pair
// as any probes do.
void assign_file_classes(const ProbeCatalog& catalog, const std::vector<uint32_t>& starts,
                         const std::vector<uint32_t>& ends, LatencyConfig* config) {
  std::map<std::string, uint16_t> classes;
  for (const std::vector<uint32_t>* list : {&starts, &ends}) {
    for (uint32_t s : *list) {
      const std::string& path = catalog.probe_of_site(s).path;
      if (path.empty()) return;  // a USDT probe
      classes.emplace(path, 0);
    }
  }
  if (classes.size() < 2 || classes.size() > 0xffff) return;
  uint16_t next = 0;
  for (auto& [path, cls] : classes) cls = ++next;
  config->pair_class.assign(catalog.site_count(), 0);
  for (const std::vector<uint32_t>* list : {&starts, &ends}) {
    for (uint32_t s : *list) config->pair_class[s] = classes[catalog.probe_of_site(s).path];
  }
}

}  // namespace

Result<LatencyConfig> make_latency_config(const ReportOptions& options, const ProbeCatalog& catalog) {
  if (options.start.empty() || options.end.empty()) return Error("latency needs both --start and --end");
  Result<std::vector<uint32_t>> starts = sites_matching(catalog, options.start);
  if (!starts) return starts.error().context("--start");
  Result<std::vector<uint32_t>> ends = sites_matching(catalog, options.end);
  if (!ends) return ends.error().context("--end");
  LatencyConfig config;
  config.roles.assign(catalog.site_count(), SiteRole::none);
  for (uint32_t s : *starts) config.roles[s] = SiteRole::start;
  for (uint32_t s : *ends) {
    if (config.roles[s] == SiteRole::start) {
      return Error("--start '" + options.start + "' and --end '" + options.end + "' both select " +
                   catalog.probe_of_site(s).full_name);
    }
    config.roles[s] = SiteRole::end;
  }
  // A key by name pairs starts and ends that both have it; a group by name
  // takes it from either.
  if (options.key.kind == KeySpec::Kind::arg) {
    Status start_named = check_arg_name(options.key.arg, catalog, *starts, "--key");
    if (!start_named) return start_named.error().context("--start " + options.start);
    Status end_named = check_arg_name(options.key.arg, catalog, *ends, "--key");
    if (!end_named) return end_named.error().context("--end " + options.end);
  }
  if (options.by && options.by->kind == KeySpec::Kind::arg) {
    std::vector<uint32_t> both = *starts;
    both.insert(both.end(), ends->begin(), ends->end());
    Status named = check_arg_name(options.by->arg, catalog, both, "--by");
    if (!named) return named.error();
  }
  for (uint32_t s = 0; s < catalog.site_count(); ++s) config.sites.push_back(&catalog.site(s));
  assign_file_classes(catalog, *starts, *ends, &config);
  config.key = options.key;
  config.by = options.by;
  if (options.linear_hist && !options.linear) {
    return Error("--hist linear needs --linear MIN,MAX,STEP (in ns)");
  }
  config.linear = options.linear;
  config.top = std::max(options.top, options.slowest);  // latency prints the first of each
  return config;
}

}  // namespace usdt::report
