#include "report/output/latency_output.h"

#include <string>
#include <vector>

#include "report/output/group_key_text.h"
#include "report/output/json_writer.h"
#include "report/output/stack_text.h"

namespace usdt::report {

namespace {

// The fields of one set of durations, into the object w has open.
void write_stats_fields(JsonWriter& w, const DurationStats& s) {
  const bool any = s.count() > 0;
  w.key("count").uint(s.count());
  w.key("min_ns").uint_or_null(any, s.min());
  w.key("mean_ns").number_text(s.mean_text());
  for (const Percentile& p : kPercentiles) w.key(p.json_key).uint_or_null(any, any ? s.percentile(p.permille) : 0);
  w.key("max_ns").uint_or_null(any, s.max());
  w.key("relative_error").number(LogLinearHistogram::kRelativeError);
  w.key("histogram").begin_array();
  for (const HistogramBucket& b : stats_buckets(s)) {
    w.begin_object();
    w.key("low_ns").number_text(b.has_low ? int128_to_string(b.low) : "null");
    w.key("high_ns").number_text(b.has_high ? int128_to_string(b.high) : "null");
    w.key("count").uint(b.count).end_object();
  }
  w.end_array();
}

// A pair's duration, times, thread and key, into the object w has open.
void write_pair_fields(JsonWriter& w, const LatencyPair& p, const KeySpec& key, uint64_t start) {
  w.key("duration_ns").uint(p.duration).key("start_ns").uint(p.start_time);
  w.key("start_offset_ns").uint(p.start_time - start);
  w.key("pid").uint(p.pid).key("tid").uint(p.tid);
  w.key("key").number_text(pair_key_text(p, key, true));
  if (p.key_truncated) w.key("key_truncated").boolean(true);
}

// The stack of a tag, named by its own symbolizer (StackStore::Stack).
void write_tagged_stack_json(JsonWriter& w, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    w.key("stack").begin_array().end_array();
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  write_stack_json(w, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated);
}

void write_groups(JsonWriter& w, const ReportOptions& options, const TraceInput& input, const LatencyAnalyzer& a) {
  w.key("by").string(options.by->text()).key("groups").begin_array();
  for (const LatencyGroup* g : a.groups()) {
    w.begin_object().key("key").number_text(group_key_text(g->key, true));
    if (g->key.truncated) w.key("key_truncated").boolean(true);
    if (groups_name_host(options, input.hosts_differ())) {
      w.key("host").string(input.files()[g->key.domain].metadata.hostname);
    }
    write_stats_fields(w, g->stats);
    w.end_object();
  }
  w.end_array();
  w.key("pairs_outside_groups").uint(a.pairs_outside_groups());
}

// --slowest: the pairs with the probes and stacks of their start and end.
void write_slowest(JsonWriter& w, const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  const ProbeCatalog& catalog = input.catalog();
  w.key("slowest").begin_array();
  for (const LatencyPair& p : top_pairs(result.analyzer, options.slowest)) {
    w.begin_object();
    write_pair_fields(w, p, options.key, input.timeline_start());
    w.key("start_event").begin_object().key("probe").string(catalog.probe_of_site(p.start_site).shown_name);
    write_tagged_stack_json(w, *result.stacks, p.start_tag);
    w.end_object();
    if (p.end_tag != 0) {
      w.key("end_event").begin_object().key("probe").string(catalog.probe_of_site(p.end_site).shown_name);
      write_tagged_stack_json(w, *result.stacks, p.end_tag);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string latency_json(const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  const LatencyAnalyzer& analyzer = result.analyzer;
  std::string j;
  JsonWriter w(j);
  w.begin_object();
  w.key("start").string(options.start).key("end").string(options.end);
  w.key("key").string(options.key.text());
  write_stats_fields(w, analyzer.overall());
  w.key("unmatched_starts").uint(analyzer.unmatched_starts());
  w.key("unmatched_ends").uint(analyzer.unmatched_ends());
  w.key("missing_key_starts").uint(analyzer.missing_key_starts());
  w.key("missing_key_ends").uint(analyzer.missing_key_ends());
  w.key("lost_events").uint(result.lost);
  if (options.by) write_groups(w, options, input, analyzer);
  if (options.top > 0) {
    w.key("top").begin_array();
    for (const LatencyPair& p : top_pairs(analyzer, options.top)) {
      w.begin_object();
      write_pair_fields(w, p, options.key, input.timeline_start());
      w.end_object();
    }
    w.end_array();
  }
  if (options.slowest > 0) write_slowest(w, options, input, result);
  w.end_object();
  j += '\n';
  return j;
}

}  // namespace usdt::report
