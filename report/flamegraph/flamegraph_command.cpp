#include "report/flamegraph/flamegraph_command.h"

#include <memory>
#include <string>
#include <vector>

#include "report/input/trace_set.h"
#include "report/output/flame_graph.h"
#include "report/output/output_file.h"
#include "report/output/svg_text.h"
#include "report/symbols/stacks_pass.h"

namespace usdt::report {

namespace {

// "probe a:b, c:d; 1,234 events with a call stack (5 without)"
std::string subtitle_of(const ReportOptions& options, const StacksPass& whole) {
  std::string s;
  if (!options.filter.probes.empty()) {
    s = "probes ";
    for (size_t i = 0; i < options.filter.probes.size(); ++i)
      s += (i ? ", " : "") + options.filter.probes[i];
    s += "; ";
  }
  s += grouped_count(whole.with_stack) + " events with a call stack";
  if (whole.without_stack > 0)
    s += " (" + grouped_count(whole.without_stack) + " selected events without one)";
  return s;
}

struct ReadStacks {
  std::vector<FoldedStack> folded;
  std::string subtitle;
};

// The stacks of one input, or the exit code after an error was printed.
Result<ReadStacks> stacks_of(const ReportOptions& options, TraceInput& input, CommandIo io) {
  std::vector<std::string> warnings;
  Result<StacksPass> whole = read_stacks(input, options.filter, options.jobs, &warnings);
  if (!whole) return whole.error();
  print_warnings(io.err, warnings);
  if (std::string why = why_no_stacks(*whole); !why.empty()) return Error(why);
  return ReadStacks{folded_stacks(*whole), subtitle_of(options, *whole)};
}

Result<std::unique_ptr<TraceSet>> open_alone(const std::string& path, uint64_t memory_budget, CommandIo io) {
  Result<std::unique_ptr<TraceSet>> set = TraceSet::open({path}, 1, memory_budget);
  if (!set) return set.error();
  for (const std::string& w : (*set)->warnings()) print_warning(io.err, w + " (left out)");
  return set;
}

}  // namespace

int run_flamegraph(const ReportOptions& options, TraceInput& input, CommandIo io) {
  FlameGraphOptions graph;
  graph.reverse = options.reverse;
  graph.title = options.reverse ? "Icicle graph (callers)" : "Flame graph";
  Result<ReadStacks> now = Error("");
  Result<ReadStacks> before = Error("");
  if (options.diff) {
    // Each trace on its own: their events must not merge into one timeline.
    Result<std::unique_ptr<TraceSet>> a = open_alone(options.traces[0], options.memory_budget, io);
    if (!a) return command_failed(io, a.error());
    Result<std::unique_ptr<TraceSet>> b = open_alone(options.traces[1], options.memory_budget, io);
    if (!b) return command_failed(io, b.error());
    before = stacks_of(options, **a, io);
    if (!before) return command_failed(io, before.error().context(options.traces[0]));
    now = stacks_of(options, **b, io);
    if (!now) return command_failed(io, now.error().context(options.traces[1]));
    graph.before = &before->folded;
    graph.title =
        "Differential flame graph: " + options.traces[1] + " against " + options.traces[0];
    now->subtitle += "; before: " + before->subtitle;
  } else {
    now = stacks_of(options, input, io);
    if (!now) return command_failed(io, now.error());
  }
  if (!options.title.empty()) graph.title = options.title;
  graph.subtitle = now->subtitle;
  const std::string svg = flame_graph_svg(now->folded, graph);
  if (Status s = write_output(options.output, svg, io.out); !s)
    return command_failed(io, s.error());
  return 0;
}

}  // namespace usdt::report
