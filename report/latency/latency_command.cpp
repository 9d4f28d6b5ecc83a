#include "report/latency/latency_command.h"

#include <memory>
#include <vector>

#include "report/input/event_pass.h"
#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/output/live_screen.h"
#include "report/pairing/latency_setup.h"

namespace usdt::report {

namespace {

// The sites latency reads: its starts and ends.
std::vector<uint8_t> wanted_sites(const LatencyConfig& config) {
  std::vector<uint8_t> wanted;
  for (SiteRole role : config.roles) wanted.push_back(role != SiteRole::none ? 1 : 0);
  return wanted;
}

// Pairs on a thread or process and grouped by one (or by host) read no
// argument: the readers leave them undecoded (function probes' frames
// still come).
bool reads_arguments(const LatencyConfig& config) {
  return config.key.kind == KeySpec::Kind::arg ||
         (config.by && config.by->kind == KeySpec::Kind::arg);
}

std::string latency_output(const ReportOptions& options, const TraceInput& input,
                           const LatencyPass& whole) {
  return options.format == "json" ? latency_json(options, input, whole)
                                  : latency_text(options, input, whole);
}

}  // namespace

int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "latency cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  Result<LatencyConfig> config = make_latency_config(options, input.catalog());
  if (!config) return command_failed(io, config.error());
  const std::vector<uint8_t> wanted = wanted_sites(*config);
  pass->read_only_sites(wanted, reads_arguments(*config));
  for (const TraceFileInfo& f : input.files()) config->hosts.push_back(f.metadata.hostname);
  // --top keeps the same pairs whatever order they come in
  // (LatencyAnalyzer::top); with --slowest each segment's symbols start from
  // the mappings of its time and its stacks join the first segment's store
  // as it is merged. With --by, a merge that reaches the group limit gives
  // up, and the trace is read in one pass.
  auto make = [&](const Segment& s, const StackSymbolizer* symbols) {
    LatencyConfig c = *config;
    c.later_segment = s.later();
    return LatencyPass(std::move(c), wanted, pass->filter(), symbols);
  };
  auto merge = [](LatencyPass& earlier, LatencyPass& later) { return earlier.merge(later); };
  const LatencyPass whole =
      options.slowest > 0
          ? pass->fold_from_state<LatencyPass, StackSymbolizer>(
                [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::copies,
                [&](const Segment& s, const StackSymbolizer& symbols) { return make(s, &symbols); }, merge)
          : pass->fold<LatencyPass>([&](const Segment& s) { return make(s, nullptr); }, merge);
  print_warnings(io.err, pass->read_problems());
  std::fputs(latency_output(options, input, whole).c_str(), io.out);
  return 0;
}

int run_latency_follow(const ReportOptions& options, CommandIo io) {
  LiveScreen screen(io.out, false);
  const FollowOptions follow{options.interval, false};
  for (;;) {  // from the start again when probe sites were added (LiveTrace)
    Result<std::unique_ptr<LiveTrace>> live = LiveTrace::open(options.traces.front());
    if (!live) return command_failed(io, live.error());
    Result<EventPass> pass = EventPass::open(**live, options.filter, {.jobs = 1});
    if (!pass) return command_failed(io, pass.error());
    Result<LatencyConfig> config = make_latency_config(options, (*live)->catalog());
    if (!config) return command_failed(io, config.error());
    config->hosts.push_back((*live)->files().front().metadata.hostname);
    const std::vector<uint8_t> wanted = wanted_sites(*config);
    LatencyPass whole(*config, wanted, pass->filter(), nullptr);
    auto show = [&](const FollowState& state) {
      if (state.final) return true;  // after the loop, with its warnings
      return screen.draw(
          live_status_line(**live, state) + "\n" + latency_output(options, **live, whole), false);
    };
    Result<FollowEnd> end = follow_trace(
        **live, follow, [&] { pass->read(**live, whole); }, show, true);
    if (!end) return command_failed(io, end.error());
    if (*end == FollowEnd::sites_changed) continue;
    if (*end == FollowEnd::output_failed)
      return command_failed(io, Error("cannot write the report: the output was closed"));
    print_warnings(io.err, pass->read_problems());
    return screen.draw(latency_output(options, **live, whole), true) ? 0 : 1;
  }
}

}  // namespace usdt::report
