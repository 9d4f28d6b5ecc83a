// html's consumer of the event pass (report/input/event_pass.h): the
// summary's, the pairs' and the stacks' consumers in one read of the
// traces, each given the records its own command's read gives it, so that
// the report's numbers are those of summary, latency and stacks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/input/event_pass.h"
#include "report/pairing/latency_pass.h"
#include "report/stats/summary_facts.h"
#include "report/symbols/stacks_pass.h"

namespace usdt::report {

class HtmlPass : public PassConsumer {
 public:
  // latency: with --start and --end, its consumer and the sites it is given
  // the events of (LatencyReading::sites()).
  HtmlPass(SummaryPass summary, std::optional<LatencyPass> latency,
           const std::vector<uint8_t>* latency_sites, StacksPass stacks)
      : summary(std::move(summary)),
        latency(std::move(latency)),
        stacks(std::move(stacks)),
        latency_sites_(latency_sites) {}

  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e,
                uint64_t time) {
    summary.on_event(site, file, domain, e, time);
    if (latency && (*latency_sites_)[site] != 0) latency->on_event(site, file, domain, e, time);
    stacks.on_event(site, file, domain, e, time);
  }
  void on_unlisted_event(uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) {
    summary.on_unlisted_event(file, domain, e, time);
  }
  void on_process(uint32_t file, uint32_t domain, const format::ProcessEvent& p) {
    summary.on_process(file, domain, p);
    if (latency) latency->on_process(file, domain, p);
    stacks.on_process(file, domain, p);
  }
  void on_lost(uint32_t file, uint32_t site, const format::LostEvent& lost, uint64_t time) {
    summary.on_lost(file, site, lost, time);
    if (latency) latency->on_lost(file, site, lost, time);
    stacks.on_lost(file, site, lost, time);
  }
  static constexpr bool kWatchesTime = SummaryPass::kWatchesTime;
  void on_record_time(uint64_t time) { summary.on_record_time(time); }
  void on_end() {
    summary.on_end();
    if (latency) latency->on_end();
    stacks.on_end();
  }
  bool over_limit() const { return latency && latency->over_limit(); }

  // False when the pairs cannot merge (a group limit reached): the pass then
  // reads the traces again serially, and these partial results are dropped.
  bool merge(HtmlPass& later) {
    if (latency && !latency->merge(*later.latency)) return false;
    return summary.merge(later.summary) && stacks.merge(later.stacks);
  }

  SummaryPass summary;
  std::optional<LatencyPass> latency;
  StacksPass stacks;

 private:
  const std::vector<uint8_t>* latency_sites_;
};

// What html shows, read in one pass.
struct HtmlParts {
  Summary summary;
  std::optional<LatencyPass> latency;  // with --start and --end
  StacksPass stacks;
};

// The summary, the pairs (with their heat map) and the stacks of input as
// options select them, read by one event pass on options.jobs threads; the
// pass's read problems and the summary's disagreements are appended to
// warnings. Fails as read_summary and read_latency do.
Result<HtmlParts> read_html_parts(const ReportOptions& options, TraceInput& input,
                                  std::vector<std::string>* warnings);

}  // namespace usdt::report
