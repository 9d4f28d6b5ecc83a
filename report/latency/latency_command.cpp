#include "report/latency/latency_command.h"

#include <string>
#include <vector>

#include "report/output/latency_output.h"

namespace usdt::report {

int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "latency cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  std::vector<std::string> warnings;
  Result<LatencyPass> whole = read_latency(options, input, false, &warnings);
  if (!whole) return command_failed(io, whole.error());
  print_warnings(io.err, warnings);
  const std::string out =
      options.format == "json" ? latency_json(options, input, *whole) : latency_text(options, input, *whole);
  std::fputs(out.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
