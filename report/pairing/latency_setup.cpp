#include "report/pairing/latency_setup.h"

#include <algorithm>
#include <string>

#include "report/input/site_selection.h"

namespace usdt::report {

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
  // Function probes in several files: each file its own pairing class.
  std::vector<std::string> paths;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) paths.push_back(catalog.probe_of_site(s).path);
  config.pair_class = pairing::pair_classes_by_file(config.roles, paths);
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
