#include "report/summary/summary_command.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "report/input/event_pass.h"
#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/output/live_screen.h"
#include "report/summary/summary_facts.h"
#include "report/summary/summary_pass.h"

namespace usdt::report {

namespace {

// The sorted distinct host names, and each file's index among them.
std::vector<std::string> sorted_hosts(const TraceInput& input) {
  std::vector<std::string> hosts;
  for (const TraceFileInfo& f : input.files()) hosts.push_back(f.metadata.hostname);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

std::vector<uint32_t> host_of_each_file(const TraceInput& input, const std::vector<std::string>& hosts) {
  std::vector<uint32_t> out;
  for (const TraceFileInfo& f : input.files()) {
    out.push_back(static_cast<uint32_t>(std::lower_bound(hosts.begin(), hosts.end(), f.metadata.hostname) -
                                        hosts.begin()));
  }
  return out;
}

}  // namespace

namespace {

// What the pass read, said: the output and the warnings about it.
std::string summary_output(const ReportOptions& options, const TraceInput& input,
                           const EventPass& pass, const SummaryPass& whole, std::FILE* warnings) {
  const bool by_host = options.by && options.by->kind == KeySpec::Kind::host;
  const SummaryFacts facts =
      summarize(input, pass.filter(), options.filter, whole, by_host, sorted_hosts(input));
  if (warnings != nullptr) {
    print_warnings(warnings, facts.disagreements);
    if (whole.stats.lost() > 0) {
      print_warning(
          warnings,
          std::to_string(whole.stats.lost()) +
              " events were lost by the kernel (ring buffer full): the counts below miss them");
    }
  }
  return options.format == "json" ? summary_json(facts, input, whole)
                                  : summary_text(facts, input, whole);
}

}  // namespace

int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io) {
  // Counts only: no argument is decoded.
  Result<EventPass> pass = EventPass::open(input, options.filter, {.reads_arguments = false, .jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  // --by host: events per host (sorted names) and probe.
  const bool by_host = options.by && options.by->kind == KeySpec::Kind::host;
  std::vector<std::string> hosts = sorted_hosts(input);
  const std::vector<uint32_t> host_of_file = by_host ? host_of_each_file(input, hosts) : std::vector<uint32_t>{};
  const SummaryContext context{input.catalog(), pass->filter(), host_of_file, hosts.size()};
  const size_t files = input.files().size();
  const SummaryPass whole = pass->fold<SummaryPass>(
      [&](const Segment& s) { return SummaryPass(context, files, s); },
      [](SummaryPass& earlier, SummaryPass& later) { return earlier.merge(later); });
  print_warnings(io.err, pass->read_problems());
  std::fputs(summary_output(options, input, *pass, whole, io.err).c_str(), io.out);
  return 0;
}

int run_summary_follow(const ReportOptions& options, CommandIo io) {
  LiveScreen screen(io.out, false);
  const FollowOptions follow{options.interval, false};
  for (;;) {  // from the start again when probe sites were added (LiveTrace)
    Result<std::unique_ptr<LiveTrace>> live = LiveTrace::open(options.traces.front());
    if (!live) return command_failed(io, live.error());
    Result<EventPass> pass =
        EventPass::open(**live, options.filter, {.reads_arguments = false, .jobs = 1});
    if (!pass) return command_failed(io, pass.error());
    const bool by_host = options.by && options.by->kind == KeySpec::Kind::host;
    const std::vector<uint32_t> host_of_file =
        by_host ? std::vector<uint32_t>{0} : std::vector<uint32_t>{};
    const SummaryContext context{(*live)->catalog(), pass->filter(), host_of_file, 1};
    SummaryPass whole(context, 1, Segment{});
    auto show = [&](const FollowState& state) {
      if (state.final) return true;  // after the loop, with its warnings
      return screen.draw(live_status_line(**live, state) + "\n" +
                             summary_output(options, **live, *pass, whole, nullptr),
                         false);
    };
    Result<FollowEnd> end = follow_trace(
        **live, follow, [&] { pass->read(**live, whole); }, show, true);
    if (!end) return command_failed(io, end.error());
    if (*end == FollowEnd::sites_changed) continue;
    if (*end == FollowEnd::output_failed)
      return command_failed(io, Error("cannot write the summary: the output was closed"));
    print_warnings(io.err, pass->read_problems());
    return screen.draw(summary_output(options, **live, *pass, whole, io.err), true) ? 0 : 1;
  }
}

}  // namespace usdt::report
