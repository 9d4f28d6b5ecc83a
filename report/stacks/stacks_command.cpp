#include "report/stacks/stacks_command.h"

#include <string>
#include <vector>

#include "report/stacks/stacks_output.h"

namespace usdt::report {

int run_stacks(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "stacks cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  std::vector<std::string> warnings;
  Result<StacksPass> whole = read_stacks(input, options.filter, options.jobs, &warnings);
  if (!whole) return command_failed(io, whole.error());
  print_warnings(io.err, warnings);
  if (const std::string why = why_no_stacks(*whole); !why.empty()) {
    print_error(io.err, why);
    return 1;
  }
  const std::string out = options.folded            ? stacks_folded(*whole)
                          : options.format == "json" ? stacks_json(*whole)
                                                     : stacks_text(*whole);
  std::fputs(out.c_str(), io.out);
  if (std::fflush(io.out) != 0 || std::ferror(io.out)) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

}  // namespace usdt::report
