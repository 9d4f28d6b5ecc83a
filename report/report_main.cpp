#include "report/report_main.h"

#include "report/commands.h"
#include "report/report_options.h"
#include "report/trace_set.h"

namespace usdt::report {

int report_main(int argc, const char* const* argv, std::FILE* out, std::FILE* err) {
  ParsedCommandLine parsed = parse_command_line(argc, argv);
  if (parsed.action == ParsedCommandLine::Action::print_and_exit) {
    std::fputs(parsed.text.c_str(), parsed.to_stderr ? err : out);
    return parsed.exit_code;
  }
  // One thread unless -j asks for more: measured on 2 cores, handing whole
  // decoded chunks to the merge costs the main thread more than decoding
  // them itself for summary (0.63 x the serial speed on 10 M events) and
  // for a real recording's latency (0.77 x); only a latency on a trace
  // whose decoding outweighs the pairing gained (1.34 x). README, -j.
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
