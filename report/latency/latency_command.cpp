#include "report/latency/latency_command.h"

#include <memory>
#include <string>
#include <vector>

#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/output/latency_output.h"
#include "report/output/live_screen.h"
#include "report/pairing/latency_setup.h"

namespace usdt::report {

namespace {

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
  std::vector<std::string> warnings;
  Result<LatencyPass> whole = read_latency(options, input, false, &warnings);
  if (!whole) return command_failed(io, whole.error());
  print_warnings(io.err, warnings);
  std::fputs(latency_output(options, input, *whole).c_str(), io.out);
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
    const std::vector<uint8_t> wanted = paired_sites(*config);
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
