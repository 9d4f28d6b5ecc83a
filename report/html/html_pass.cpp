#include "report/html/html_pass.h"

namespace usdt::report {

Result<HtmlParts> read_html_parts(const ReportOptions& options, TraceInput& input,
                                  std::vector<std::string>* warnings) {
  // The pairs' plan first, for whether they read arguments (neither the
  // summary nor the stacks look at any); its error after the pass's, as the
  // commands of the parts give them.
  Result<std::unique_ptr<LatencyReading>> planned = std::unique_ptr<LatencyReading>();
  if (!options.start.empty()) planned = LatencyReading::plan(options, input, true);
  const bool arguments = planned && *planned && (*planned)->reads_arguments();
  Result<EventPass> pass =
      EventPass::open(input, options.filter, {.reads_arguments = arguments, .jobs = options.jobs});
  if (!pass) return pass.error();
  if (!planned) return planned.error();
  const std::unique_ptr<LatencyReading>& latency = *planned;
  SummaryReading summary(options, input, pass->filter());
  // The stacks' symbols advance through each segment's process records; the
  // pairs' copy them as of the segment's start, as their own read does.
  HtmlPass whole = pass->fold_from_state<HtmlPass, StackSymbolizer>(
      [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::advances,
      [&](const Segment& s, StackSymbolizer& symbols) {
        std::optional<LatencyPass> pairs;
        if (latency) pairs.emplace(latency->make(s, pass->filter(), &symbols));
        return HtmlPass(summary.make(s), std::move(pairs), latency ? &latency->sites() : nullptr,
                        StacksPass(input.catalog(), symbols));
      },
      [](HtmlPass& earlier, HtmlPass& later) { return earlier.merge(later); });
  for (const std::string& w : pass->read_problems()) warnings->push_back(w);
  Summary facts = summary.finish(std::move(whole.summary), warnings);
  facts.facts.completeness = pass->completeness();
  return HtmlParts{std::move(facts), std::move(whole.latency), std::move(whole.stacks)};
}

}  // namespace usdt::report
