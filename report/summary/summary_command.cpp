#include "report/summary/summary_command.h"

#include <algorithm>
#include <string>
#include <vector>

#include "report/input/event_pass.h"
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

  SummaryFacts facts =
      summarize(input, pass->filter(), options.filter, whole, by_host, std::move(hosts));
  facts.completeness = pass->completeness();
  print_warnings(io.err, facts.disagreements);
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
