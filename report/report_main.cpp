#include "report/report_main.h"

#include "report/command_line.h"
#include "report/dump/dump_command.h"
#include "report/export/clickhouse_export.h"
#include "report/export/export_command.h"
#include "report/flamegraph/flamegraph_command.h"
#include "report/heatmap/heatmap_command.h"
#include "report/hist/hist_command.h"
#include "report/html/html_command.h"
#include "report/input/trace_set.h"
#include "report/latency/latency_command.h"
#include "report/stacks/stacks_command.h"
#include "report/summary/summary_command.h"
#include "report/top/top_command.h"

namespace usdt::report {

int run_command(const ReportOptions& options, TraceInput& input, CommandIo io) {
  switch (options.command) {
    case Command::summary: return run_summary(options, input, io);
    case Command::dump: return run_dump(options, input, io);
    case Command::latency: return run_latency(options, input, io);
    case Command::hist: return run_hist(options, input, io);
    case Command::export_trace: return run_export(options, input, io);
    case Command::stacks: return run_stacks(options, input, io);
    case Command::flamegraph: return run_flamegraph(options, input, io);
    case Command::heatmap: return run_heatmap(options, input, io);
    case Command::html: return run_html(options, input, io);
    case Command::top: return run_top(options, io);
  }
  return 1;
}

namespace {

// top, and summary and latency --follow: one trace read while it is written.
int run_live_command(const ReportOptions& options, CommandIo io) {
  switch (options.command) {
    case Command::summary:
      return run_summary_follow(options, io);
    case Command::latency:
      return run_latency_follow(options, io);
    default:
      return run_top(options, io);
  }
}

}  // namespace

int report_main(int argc, const char* const* argv, std::FILE* out, std::FILE* err) {
  ParsedCommandLine parsed = parse_command_line(argc, argv);
  if (parsed.action == ParsedCommandLine::Action::print_schema) {
    std::fputs(clickhouse_schema().c_str(), out);
    return 0;
  }
  if (parsed.action == ParsedCommandLine::Action::print_and_exit) {
    std::fputs(parsed.text.c_str(), parsed.to_stderr ? err : out);
    return parsed.exit_code;
  }
  // Decoding ahead of the merge only when -j asks for it: handing whole
  // decoded chunks to the main thread was slower than the serial read on 2
  // cores (bench/results/report-scale.md). The commands use every CPU by
  // default through segments (report/input/segments.h), which read the files
  // anew and never decode ahead.
  if (parsed.options.follow) return run_live_command(parsed.options, CommandIo{out, err});
  const uint32_t jobs = parsed.options.jobs == 0 ? 1 : parsed.options.jobs;
  Result<std::unique_ptr<TraceSet>> set =
      TraceSet::open(parsed.options.traces, jobs, parsed.options.memory_budget);
  if (!set) {
    print_error(err, set.error().message());
    return 1;
  }
  for (const std::string& w : (*set)->warnings()) print_warning(err, w + " (left out)");
  for (const std::string& w : (*set)->duplicates()) print_warning(err, w);
  for (const std::string& w : (*set)->series_notes()) print_warning(err, w);
  return run_command(parsed.options, **set, CommandIo{out, err});
}

}  // namespace usdt::report
