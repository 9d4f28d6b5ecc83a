// latency's text output.
#include <string>
#include <vector>

#include "report/latency/latency_command.h"
#include "report/output/latency_output.h"
#include "report/output/group_key_text.h"
#include "report/output/histogram_text.h"
#include "report/output/json_text.h"
#include "report/output/stack_text.h"
#include "report/stats/duration.h"

namespace usdt::report {

namespace {

std::string stats_text(const DurationStats& s) {
  if (s.count() == 0) return "  no start/end pair matched\n";
  std::string t;
  auto line = [&](const std::string& name, const std::string& value) {
    t += "  " + name + std::string(name.size() < 8 ? 8 - name.size() : 0, ' ') + value + "\n";
  };
  line("count", std::to_string(s.count()));
  line("min", std::to_string(s.min()) + " ns");
  line("mean", s.mean_text() + " ns");
  for (const Percentile& p : kPercentiles) line(p.name, std::to_string(s.percentile(p.permille)) + " ns");
  line("max", std::to_string(s.max()) + " ns");
  t += "\n  histogram (ns):\n";
  t += render_histogram_text(stats_buckets(s), "  ");
  return t;
}

// What was paired on what, what did not pair, what was lost, how exact.
std::string head_text(const ReportOptions& options, const LatencyPass& result) {
  const LatencyAnalyzer& a = result.analyzer;
  std::string t = "latency " + options.start + " -> " + options.end + ", paired on " + options.key.text() + "\n";
  t += "  unmatched starts: " + std::to_string(a.unmatched_starts()) +
       ", unmatched ends: " + std::to_string(a.unmatched_ends());
  if (a.missing_key_starts() + a.missing_key_ends() > 0) {
    t += ", without " + options.key.text() + ": " + std::to_string(a.missing_key_starts()) + " starts, " +
         std::to_string(a.missing_key_ends()) + " ends";
  }
  t += "\n";
  if (result.lost > 0) {
    t += "  events lost while recording: " + std::to_string(result.lost) +
         " (the kernel's ring buffer was full): pairs around them may be missing or wrong\n";
  }
  t += "  percentiles within " + json_double(LogLinearHistogram::kRelativeError * 100) +
       "% of the true value (relative_error " + json_double(LogLinearHistogram::kRelativeError) +
       "); count, min, mean and max are exact\n\n";
  return t;
}

std::string groups_text(const ReportOptions& options, const TraceInput& input, const LatencyAnalyzer& a) {
  std::string t;
  const std::vector<const LatencyGroup*> groups = a.groups();
  std::vector<const GroupKey*> keys;
  for (const LatencyGroup* g : groups) keys.push_back(&g->key);
  const std::vector<std::string> labels = group_labels(keys);
  for (size_t i = 0; i < groups.size(); ++i) {
    const LatencyGroup* g = groups[i];
    t += "\n" + options.by->text() + " " + labels[i];
    if (groups_name_host(options, input.hosts_differ())) t += " on " + input.files()[g->key.domain].metadata.hostname;
    t += ":\n" + stats_text(g->stats);
  }
  if (a.pairs_outside_groups() > 0) {
    t += "\n(" + std::to_string(a.pairs_outside_groups()) + " pairs beyond the first 1000 groups are only in the totals)\n";
  }
  return t;
}

// --top: one line per pair.
std::string top_text(const ReportOptions& options, const TraceInput& input, const LatencyAnalyzer& a) {
  const std::vector<LatencyPair> top = top_pairs(a, options.top);
  std::string t = "\nslowest " + std::to_string(top.size()) + " pair" + (top.size() == 1 ? "" : "s") + ":\n";
  t += "  " + std::string("duration_ns") + "  start (s)         pid/tid          " + options.key.text() + "\n";
  for (const LatencyPair& p : top) {
    const std::string d = std::to_string(p.duration);
    const std::string s = "+" + format_seconds(p.start_time - input.timeline_start());
    const std::string pt = std::to_string(p.pid) + "/" + std::to_string(p.tid);
    t += "  " + std::string(d.size() < 11 ? 11 - d.size() : 0, ' ') + d + "  " + s +
         std::string(s.size() < 18 ? 18 - s.size() : 1, ' ') + pt +
         std::string(pt.size() < 17 ? 17 - pt.size() : 1, ' ') + pair_key_text(p, options.key, false) + "\n";
  }
  return t;
}

// The stack of a tag, named by its own symbolizer (StackStore::Stack).
void append_tagged_stack_text(std::string& t, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    t += "        (no stack)\n";
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  append_stack_text(t, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated, "        ");
}

// --slowest: each pair with the stacks of its start and end.
std::string slowest_text(const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  const ProbeCatalog& catalog = input.catalog();
  const std::vector<LatencyPair> slowest = top_pairs(result.analyzer, options.slowest);
  std::string t = "\nslowest " + std::to_string(slowest.size()) + " pair" + (slowest.size() == 1 ? "" : "s") +
                  " with their stacks:\n";
  for (const LatencyPair& p : slowest) {
    t += "\n  " + std::to_string(p.duration) + " ns at +" + format_seconds(p.start_time - input.timeline_start()) +
         " pid/tid " + std::to_string(p.pid) + "/" + std::to_string(p.tid) + ", " + options.key.text() + " " +
         pair_key_text(p, options.key, false) + "\n";
    t += "    start " + catalog.probe_of_site(p.start_site).shown_name + ":\n";
    append_tagged_stack_text(t, *result.stacks, p.start_tag);
    if (p.end_tag != 0) {
      t += "    end " + catalog.probe_of_site(p.end_site).shown_name + ":\n";
      append_tagged_stack_text(t, *result.stacks, p.end_tag);
    }
  }
  return t;
}

}  // namespace

std::string latency_text(const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  std::string t = head_text(options, result) + stats_text(result.analyzer.overall());
  if (options.by) t += groups_text(options, input, result.analyzer);
  if (options.top > 0) t += top_text(options, input, result.analyzer);
  if (options.slowest > 0) t += slowest_text(options, input, result);
  return t;
}

}  // namespace usdt::report
