#include "report/summary/summary_command.h"

#include <string>
#include <vector>

#include "report/output/summary_json.h"
#include "report/stats/summary_facts.h"
#include "report/summary/summary_text.h"

namespace usdt::report {

int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io) {
  std::vector<std::string> warnings;
  Result<Summary> summary = read_summary(options, input, &warnings);
  if (!summary) return command_failed(io, summary.error());
  print_warnings(io.err, warnings);
  const SummaryPass& whole = summary->whole;
  const SummaryFacts& facts = summary->facts;
  if (whole.stats.lost() > 0) {
    print_warning(io.err, std::to_string(whole.stats.lost()) +
                              " events were lost by the kernel (ring buffer full): the counts below miss them");
  }
  const std::string out =
      options.format == "json" ? summary_json(facts, input, whole) : summary_text(facts, input, whole);
  std::fputs(out.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
