#include "report/stacks/stacks_command.h"

#include <memory>
#include <string>

#include "report/input/event_pass.h"
#include "report/stacks/stacks_pass.h"

namespace usdt::report {

int run_stacks(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "stacks cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  // Stacks and probes only: no argument is decoded.
  Result<EventPass> pass = EventPass::open(input, options.filter, {.reads_arguments = false, .jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  // Each segment's symbols start from the process records before it (its
  // mappings), carried by each thread from its last segment.
  const StacksPass whole = pass->fold_from_state<StacksPass, StackSymbolizer>(
      [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::advances,
      [&](const Segment&, StackSymbolizer& symbols) { return StacksPass(input.catalog(), symbols); },
      [](StacksPass& earlier, StacksPass& later) { return earlier.merge(later); });
  print_warnings(io.err, pass->read_problems());
  if (whole.with_stack == 0) {
    print_error(io.err, whole.without_stack == 0
                            ? "no events selected, so no call stacks to show"
                            : "the selected events have no call stacks (record them with usdt-record -g)");
    return 1;
  }
  const std::string out = options.folded            ? stacks_folded(whole)
                          : options.format == "json" ? stacks_json(whole)
                                                     : stacks_text(whole);
  std::fputs(out.c_str(), io.out);
  if (std::fflush(io.out) != 0 || std::ferror(io.out)) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

}  // namespace usdt::report
