#include "report/pairing/latency_pass.h"

#include "report/pairing/latency_setup.h"

namespace usdt::report {

std::vector<uint8_t> paired_sites(const LatencyConfig& config) {
  std::vector<uint8_t> wanted;
  for (SiteRole role : config.roles) wanted.push_back(role != SiteRole::none ? 1 : 0);
  return wanted;
}

Result<LatencyPass> read_latency(const ReportOptions& options, TraceInput& input, bool with_grids,
                                 std::vector<std::string>* warnings) {
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return pass.error();
  Result<LatencyConfig> config = make_latency_config(options, input.catalog());
  if (!config) return config.error();
  const std::vector<uint8_t> wanted = paired_sites(*config);
  // Pairs on a thread or process and grouped by one (or by host) read no
  // argument: the readers leave them undecoded (function probes' frames
  // still come).
  const bool arg_key = config->key.kind == KeySpec::Kind::arg;
  const bool arg_groups = config->by && config->by->kind == KeySpec::Kind::arg;
  pass->read_only_sites(wanted, arg_key || arg_groups);
  for (const TraceFileInfo& f : input.files()) config->hosts.push_back(f.metadata.hostname);
  // --top keeps the same pairs whatever order they come in
  // (LatencyAnalyzer::top); with --slowest each segment's symbols start from
  // the mappings of its time and its stacks join the first segment's store
  // as it is merged. With --by, a merge that reaches the group limit gives
  // up, and the trace is read in one pass.
  auto make = [&](const Segment& s, const StackSymbolizer* symbols) {
    LatencyConfig c = *config;
    c.later_segment = s.later();
    LatencyPass p(std::move(c), wanted, pass->filter(), symbols);
    if (with_grids)
      p.grids = std::make_unique<LatencyGrids>(
          LatencyGrids{input.timeline_start(), config->by.has_value(), {}, {}});
    return p;
  };
  auto merge = [](LatencyPass& earlier, LatencyPass& later) { return earlier.merge(later); };
  LatencyPass whole =
      options.slowest > 0
          ? pass->fold_from_state<LatencyPass, StackSymbolizer>(
                [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::copies,
                [&](const Segment& s, const StackSymbolizer& symbols) { return make(s, &symbols); },
                merge)
          : pass->fold<LatencyPass>([&](const Segment& s) { return make(s, nullptr); }, merge);
  for (const std::string& w : pass->read_problems()) warnings->push_back(w);
  return whole;
}

}  // namespace usdt::report
