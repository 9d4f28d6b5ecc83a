#include "report/pairing/latency_pass.h"

#include "report/pairing/latency_setup.h"

namespace usdt::report {

std::vector<uint8_t> paired_sites(const LatencyConfig& config) {
  std::vector<uint8_t> wanted;
  for (SiteRole role : config.roles) wanted.push_back(role != SiteRole::none ? 1 : 0);
  return wanted;
}

LatencyReading::LatencyReading(LatencyConfig config, const TraceInput& input, bool with_grids,
                               bool slowest)
    : config_(std::move(config)),
      timeline_start_(input.timeline_start()),
      with_grids_(with_grids),
      slowest_(slowest) {
  wanted_ = paired_sites(config_);
  for (const TraceFileInfo& f : input.files()) config_.hosts.push_back(f.metadata.hostname);
}

Result<std::unique_ptr<LatencyReading>> LatencyReading::plan(const ReportOptions& options,
                                                             const TraceInput& input,
                                                             bool with_grids) {
  Result<LatencyConfig> config = make_latency_config(options, input.catalog());
  if (!config) return config.error();
  return std::unique_ptr<LatencyReading>(
      new LatencyReading(std::move(*config), input, with_grids, options.slowest > 0));
}

bool LatencyReading::reads_arguments() const {
  // Pairs on a thread or process and grouped by one (or by host) read no
  // argument: the readers leave them undecoded (function probes' frames
  // still come).
  const bool arg_key = config_.key.kind == KeySpec::Kind::arg;
  const bool arg_groups = config_.by && config_.by->kind == KeySpec::Kind::arg;
  return arg_key || arg_groups;
}

LatencyPass LatencyReading::make(const Segment& segment, const EventFilter& filter,
                                 const StackSymbolizer* symbols) const {
  LatencyConfig c = config_;
  c.later_segment = segment.later();
  std::unique_ptr<LatencyGrids> grids;
  if (with_grids_) {
    grids = std::make_unique<LatencyGrids>(
        LatencyGrids{timeline_start_, config_.by.has_value(), {}, {}});
  }
  return LatencyPass(std::move(c), wanted_, filter, slowest_ ? symbols : nullptr,
                     std::move(grids));
}

Result<LatencyPass> read_latency(const ReportOptions& options, TraceInput& input, bool with_grids,
                                 std::vector<std::string>* warnings) {
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return pass.error();
  Result<std::unique_ptr<LatencyReading>> reading =
      LatencyReading::plan(options, input, with_grids);
  if (!reading) return reading.error();
  const LatencyReading& r = **reading;
  pass->read_only_sites(r.sites(), r.reads_arguments());
  // --top keeps the same pairs whatever order they come in
  // (LatencyAnalyzer::top); with --slowest each segment's symbols start from
  // the mappings of its time and its stacks join the first segment's store
  // as it is merged. With --by, a merge that reaches the group limit gives
  // up, and the trace is read in one pass.
  auto merge = [](LatencyPass& earlier, LatencyPass& later) { return earlier.merge(later); };
  LatencyPass whole =
      r.keeps_stacks()
          ? pass->fold_from_state<LatencyPass, StackSymbolizer>(
                [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::copies,
                [&](const Segment& s, const StackSymbolizer& symbols) {
                  return r.make(s, pass->filter(), &symbols);
                },
                merge)
          : pass->fold<LatencyPass>(
                [&](const Segment& s) { return r.make(s, pass->filter(), nullptr); }, merge);
  for (const std::string& w : pass->read_problems()) warnings->push_back(w);
  return whole;
}

}  // namespace usdt::report
