#include "report/hist/hist_command.h"

#include <vector>

#include "report/hist/hist_pass.h"
#include "report/input/event_pass.h"
#include "report/input/site_selection.h"
#include "report/output/arg_format.h"

namespace usdt::report {

namespace {

// A histogram needs numbers: a string argument has no place on an axis.
Status check_numbers(const ReportOptions& options, const ProbeCatalog& catalog, const EventFilter& filter) {
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const int i = options.arg->at(&catalog.site(s));
    if (filter.site_selected(s) && i >= 0 && arg_type_at(&catalog.site(s), i) == ArgType::string) {
      return Error("argument " + (options.arg->name.empty() ? std::to_string(i) : options.arg->name) + " of " +
                   catalog.probe_of_site(s).full_name + " is a string: a histogram needs numbers");
    }
  }
  return Status::success();
}

// The histogram's configuration for the selected sites; fails when the
// argument names no argument of any.
Result<ArgHistogramConfig> hist_config(const ReportOptions& options, const TraceInput& input,
                                       const EventFilter& filter) {
  const ProbeCatalog& catalog = input.catalog();
  ArgHistogramConfig config;
  config.arg = *options.arg;
  config.by = options.by;
  for (const TraceFileInfo& f : input.files()) config.hosts.push_back(f.metadata.hostname);
  config.linear = options.linear;
  std::vector<uint32_t> selected;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    config.selected.push_back(filter.site_selected(s) ? 1 : 0);
    config.sites.push_back(&catalog.site(s));
    if (filter.site_selected(s)) selected.push_back(s);
  }
  std::vector<std::pair<const ArgRef*, const char*>> named = {{&*options.arg, "--arg"}};
  if (options.by && options.by->kind == KeySpec::Kind::arg) named.emplace_back(&options.by->arg, "--by");
  for (auto [arg, option] : named) {
    if (Status exists = check_arg_name(*arg, catalog, selected, option); !exists) return exists.error();
  }
  return config;
}

}  // namespace

int run_hist(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "hist cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  if (options.filter.probes.empty() || !options.arg) {
    print_error(io.err, "hist needs --probe PROBE and --arg N");
    return 2;
  }
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  if (Status numbers = check_numbers(options, input.catalog(), pass->filter()); !numbers) {
    print_error(io.err, numbers.error().message());
    std::fputs(
        "hint: 'usdt-report latency --by argN' groups durations by a string; 'usdt-report dump' "
        "prints the strings\n",
        io.err);
    return 1;
  }
  Result<ArgHistogramConfig> config = hist_config(options, input, pass->filter());
  if (!config) return command_failed(io, config.error());
  // Split by time on several threads; read in one pass when the parts cannot
  // be merged exactly (ArgHistogramAnalyzer::merge).
  const HistPass whole = pass->fold<HistPass>([&](const Segment&) { return HistPass(*config); },
                                              [](HistPass& earlier, const HistPass& later) { return earlier.merge(later); });
  print_warnings(io.err, pass->read_problems());
  // pid and tid groups of different hosts are different groups: say which.
  const bool by_host = options.by && options.by->kind != KeySpec::Kind::arg &&
                       options.by->kind != KeySpec::Kind::host && input.hosts_differ();
  const std::string out = options.format == "json" ? hist_json(options, input, whole.analyzer, by_host)
                                                   : hist_text(options, input, whole.analyzer, by_host);
  std::fputs(out.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
