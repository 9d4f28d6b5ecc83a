#include "report/summary/summary_command.h"

#include <memory>
#include <string>
#include <vector>

#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/output/live_screen.h"
#include "report/output/summary_json.h"
#include "report/stats/summary_facts.h"
#include "report/summary/summary_text.h"

namespace usdt::report {

namespace {

std::string summary_output(const ReportOptions& options, const TraceInput& input,
                           const SummaryFacts& facts, const SummaryPass& whole) {
  return options.format == "json" ? summary_json(facts, input, whole)
                                  : summary_text(facts, input, whole);
}

void warn_lost(std::FILE* err, const SummaryPass& whole) {
  if (whole.stats.lost() == 0) return;
  print_warning(err, std::to_string(whole.stats.lost()) +
                         " events were lost by the kernel (ring buffer full): the counts below miss them");
}

}  // namespace

int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io) {
  std::vector<std::string> warnings;
  Result<Summary> summary = read_summary(options, input, &warnings);
  if (!summary) return command_failed(io, summary.error());
  print_warnings(io.err, warnings);
  warn_lost(io.err, summary->whole);
  std::fputs(summary_output(options, input, summary->facts, summary->whole).c_str(), io.out);
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
    // One file: one host.
    const bool by_host = options.by && options.by->kind == KeySpec::Kind::host;
    const std::vector<uint32_t> host_of_file =
        by_host ? std::vector<uint32_t>{0} : std::vector<uint32_t>{};
    const SummaryContext context{(*live)->catalog(), pass->filter(), host_of_file, 1};
    SummaryPass whole(context, 1, Segment{});
    auto facts = [&] {
      return summarize(**live, pass->filter(), options.filter, whole, by_host,
                       {(*live)->files().front().metadata.hostname});
    };
    auto show = [&](const FollowState& state) {
      if (state.final) return true;  // after the loop, with its warnings
      return screen.draw(
          live_status_line(**live, state) + "\n" + summary_output(options, **live, facts(), whole),
          false);
    };
    Result<FollowEnd> end = follow_trace(
        **live, follow, [&] { pass->read(**live, whole); }, show, true);
    if (!end) return command_failed(io, end.error());
    if (*end == FollowEnd::sites_changed) continue;
    if (*end == FollowEnd::output_failed)
      return command_failed(io, Error("cannot write the summary: the output was closed"));
    print_warnings(io.err, pass->read_problems());
    const SummaryFacts final_facts = facts();
    print_warnings(io.err, final_facts.disagreements);
    warn_lost(io.err, whole);
    return screen.draw(summary_output(options, **live, final_facts, whole), true) ? 0 : 1;
  }
}

}  // namespace usdt::report
