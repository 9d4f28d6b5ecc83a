#include "report/top/top_command.h"

#include <memory>
#include <set>
#include <vector>

#include "report/input/event_pass.h"
#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/output/live_screen.h"
#include "report/pairing/latency_setup.h"
#include "report/top/top_pass.h"
#include "report/top/top_screen.h"

namespace usdt::report {

namespace {

// One LatencyConfig per --start/--end pair, paired on --key.
Result<std::vector<LatencyConfig>> pair_configs(const ReportOptions& options,
                                                const ProbeCatalog& catalog) {
  std::vector<LatencyConfig> configs;
  for (const auto& [start, end] : options.pairs) {
    ReportOptions one;
    one.start = start;
    one.end = end;
    one.key = options.key;
    Result<LatencyConfig> c = make_latency_config(one, catalog);
    if (!c) return c.error();
    configs.push_back(std::move(*c));
  }
  return configs;
}

// The probes with a site the filter selects, in catalog order.
std::vector<uint32_t> selected_probes(const EventPass& pass) {
  std::set<uint32_t> probes;
  for (uint32_t s = 0; s < pass.catalog().site_count(); ++s) {
    if (pass.filter().site_selected(s)) probes.insert(pass.catalog().site(s).probe);
  }
  return {probes.begin(), probes.end()};
}

}  // namespace

int run_top(const ReportOptions& options, CommandIo io) {
  const std::string& path = options.traces.front();
  LiveScreen screen(io.out, true);
  std::vector<std::string> pair_names;
  for (const auto& [start, end] : options.pairs) pair_names.push_back(start + " -> " + end);
  const FollowOptions follow{options.interval, options.once};
  for (;;) {  // from the start again when probe sites were added (LiveTrace)
    Result<std::unique_ptr<LiveTrace>> live = LiveTrace::open(path);
    if (!live) return command_failed(io, live.error());
    const bool arg_key = options.key.kind == KeySpec::Kind::arg;
    Result<EventPass> pass =
        EventPass::open(**live, options.filter, {.reads_arguments = arg_key, .jobs = 1});
    if (!pass) return command_failed(io, pass.error());
    Result<std::vector<LatencyConfig>> configs = pair_configs(options, (*live)->catalog());
    if (!configs) return command_failed(io, configs.error());
    TopPass top((*live)->catalog(), (*live)->timeline_start(), std::move(*configs));
    const std::vector<uint32_t> probes = selected_probes(*pass);
    auto show = [&](const FollowState& state) {
      const TopScreenInput in{**live, top, state, pair_names, probes};
      return screen.draw(options.format == "json" ? top_json(in) : top_text(in), state.final);
    };
    Result<FollowEnd> end = follow_trace(
        **live, follow, [&] { pass->read(**live, top); }, show, true);
    if (!end) return command_failed(io, end.error());
    if (*end == FollowEnd::sites_changed) continue;
    if (*end == FollowEnd::output_failed) {
      print_error(io.err, "cannot write the screen: the output was closed");
      return 1;
    }
    print_warnings(io.err, pass->read_problems());
    return 0;
  }
}

}  // namespace usdt::report
