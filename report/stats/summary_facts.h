// What `usdt-report summary` prints (and the HTML report shows), computed once from the pass and the
// files' own metadata and summaries, for the text and JSON writers alike:
// the recording's span, the probes (most events first) with their rates and
// when each was attached, the processes, the drops by cause, and where the
// files' own summaries disagree with what was read.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "report/input/event_filter.h"
#include "report/input/file_completeness.h"
#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/stats/summary_pass.h"

namespace usdt::report {

struct Span {
  uint64_t start = 0;
  uint64_t end = 0;
  bool end_from_summary = true;  // every file ended cleanly
};

struct ProbeRow {
  uint32_t probe;
  uint64_t count;
  uint64_t lost;
};

// Of a probe's selected sites: how many, how many were attached during the
// recording, and when the first of those was (timeline time).
struct ProbeActivity {
  uint32_t sites = 0;
  uint32_t late_sites = 0;
  uint64_t late_since = 0;

  bool all_late() const { return late_sites > 0 && late_sites == sites; }
};

struct SummaryFacts {
  Span span;
  uint64_t duration = 0;
  bool windowed = false;  // --since or --until
  bool truncated = false;
  uint64_t chunks_bad = 0;
  // The damaged files: up to when each one's events are complete, per CPU.
  std::vector<FileCompleteness> completeness;
  std::vector<ProbeRow> rows;
  std::vector<ProcessCount> processes;
  std::vector<ProbeActivity> activity;  // per probe
  std::vector<std::string> disagreements;
  // The recorders' own drops by cause, summed over the files in the order the
  // causes first appear; causes counted 0 are left out.
  std::vector<std::pair<std::string, uint64_t>> dropped;
  std::vector<const SiteInfo*> first_site;  // per probe: its arguments as this site describes them
  bool by_host = false;
  std::vector<std::string> hosts;  // sorted, distinct
};

// hosts: the sorted distinct host names (--by host counts per host).
SummaryFacts summarize(const TraceInput& input, const EventFilter& filter, const FilterOptions& window,
                       const SummaryPass& whole, bool by_host, std::vector<std::string> hosts);

// The duration a probe's rate is over: the span, or from the attachment of
// a probe whose sites were all attached during the recording.
uint64_t active_duration(const Span& span, const ProbeActivity& a);

// "12.500": events per second.
std::string rate_text(uint64_t count, uint64_t duration_ns);

// "(attached at +2.314000000 s, 10:00:02.314 UTC: no events before)" for a
// probe all of whose sites were attached during the recording; for some of
// them, "(1 of its 2 sites attached at +2.314000000 s: no events of that site
// before)"; empty for a probe watched from the start.
std::string activity_text(const TraceInput& input, const ProbeActivity& a);

// What the summary read, and what it makes of it.
struct Summary {
  SummaryPass whole;
  SummaryFacts facts;
};

// The summary of input's events as options select them (--by host: per
// host too), read by the event pass on options.jobs threads; the pass's
// read problems and the facts' disagreements are appended to warnings.
// Fails when a --probe pattern selects no probe.
Result<Summary> read_summary(const ReportOptions& options, TraceInput& input, std::vector<std::string>* warnings);

// read_summary in parts, for a pass that reads more than the summary (html):
// the consumers of its segments and what the whole one makes. Made for a
// pass over input that selects what options do; kept in place while its
// consumers live (they point into it).
class SummaryReading {
 public:
  SummaryReading(const ReportOptions& options, const TraceInput& input, const EventFilter& filter);
  SummaryReading(const SummaryReading&) = delete;
  SummaryReading& operator=(const SummaryReading&) = delete;

  SummaryPass make(const Segment& segment) const { return SummaryPass(context_, files_, segment); }
  // The facts of the whole read; their disagreements are appended to warnings.
  Summary finish(SummaryPass whole, std::vector<std::string>* warnings);

 private:
  const ReportOptions& options_;
  const TraceInput& input_;
  const EventFilter& filter_;
  bool by_host_;
  std::vector<std::string> hosts_;  // sorted, distinct
  std::vector<uint32_t> host_of_file_;
  SummaryContext context_;
  size_t files_;
};

}  // namespace usdt::report
