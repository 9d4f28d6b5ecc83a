#include "report/report_main.h"

#include "report/commands.h"
#include "report/report_options.h"
#include "report/input/trace_set.h"

namespace usdt::report {

int report_main(int argc, const char* const* argv, std::FILE* out, std::FILE* err) {
  ParsedCommandLine parsed = parse_command_line(argc, argv);
  if (parsed.action == ParsedCommandLine::Action::print_and_exit) {
    std::fputs(parsed.text.c_str(), parsed.to_stderr ? err : out);
    return parsed.exit_code;
  }
  // Decoding ahead of the merge only when -j asks for it: on 2 cores,
  // handing whole decoded chunks to the main thread made summary 0.63 x and
  // a real recording's latency 0.77 x the serial speed. summary and latency
  // use every CPU by default through segments (report/input/segments.h), which
  // read the files anew and never decode ahead.
  const uint32_t jobs = parsed.options.jobs == 0 ? 1 : parsed.options.jobs;
  Result<std::unique_ptr<TraceSet>> set = TraceSet::open(parsed.options.traces, jobs);
  if (!set) {
    print_error(err, set.error().message());
    return 1;
  }
  for (const std::string& w : (*set)->warnings()) print_warning(err, w + " (left out)");
  for (const std::string& w : (*set)->duplicates()) print_warning(err, w);
  return run_command(parsed.options, **set, CommandIo{out, err});
}

}  // namespace usdt::report
