#include "report/latency/latency_command.h"

#include <memory>
#include <vector>

#include "report/input/event_pass.h"
#include "report/pairing/latency_setup.h"

namespace usdt::report {

int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "latency cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  Result<LatencyConfig> config = make_latency_config(options, input.catalog());
  if (!config) return command_failed(io, config.error());
  std::vector<uint8_t> wanted;
  for (SiteRole role : config->roles) wanted.push_back(role != SiteRole::none ? 1 : 0);
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
  const std::string out =
      options.format == "json" ? latency_json(options, input, whole) : latency_text(options, input, whole);
  std::fputs(out.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
