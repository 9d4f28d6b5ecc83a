// latency's text and JSON output.
#include <algorithm>
#include <string>
#include <vector>

#include "report/latency/latency_command.h"
#include "report/output/arg_format.h"
#include "report/output/histogram_text.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/output/stack_text.h"
#include "report/output/string_text.h"
#include "report/stats/duration.h"

namespace usdt::report {

namespace {

struct Percentile {
  const char* name;
  const char* json_key;
  unsigned permille;
};
constexpr Percentile kPercentiles[] = {
    {"p50", "p50_ns", 500}, {"p90", "p90_ns", 900}, {"p99", "p99_ns", 990}, {"p99.9", "p999_ns", 999}};

std::vector<HistogramBucket> stats_buckets(const DurationStats& s) {
  if (s.linear() != nullptr) return trim_empty_ends(s.linear()->buckets());
  return trim_empty_ends(log2_buckets(s.histogram().log2_counts()));
}

// The fields of one set of durations, into the object w has open.
void write_stats_fields(JsonWriter& w, const DurationStats& s) {
  bool any = s.count() > 0;
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
  std::string bars = render_histogram_text(stats_buckets(s));
  size_t pos = 0;
  while (pos < bars.size()) {
    size_t nl = bars.find('\n', pos);
    t += "  " + bars.substr(pos, nl - pos + 1);
    pos = nl + 1;
  }
  return t;
}

constexpr size_t kTopKeyChars = 40;  // string keys in the --top table

std::string pair_key_text(const LatencyPair& p, const KeySpec& key, bool json) {
  if (p.key_type == ArgType::string)
    return json ? json_string(p.key_text) : text_label(p.key_text, p.key_truncated, kTopKeyChars);
  if (key.kind == KeySpec::Kind::arg) return arg_text(p.key, p.key_type, json);
  return std::to_string(p.key);
}

// The first n of the slowest pairs the analyzer kept (it keeps as many as
// the larger of --top and --slowest).
std::vector<LatencyPair> top_pairs(const LatencyAnalyzer& analyzer, size_t n) {
  std::vector<LatencyPair> top = analyzer.top();
  if (top.size() > n) top.resize(n);
  return top;
}

// The stack of a tag, named by its own symbolizer (StackStore::Stack).
void append_tagged_stack_text(std::string& t, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    t += "        (no stack)\n";
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  append_stack_text(t, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated,
                    "        ");
}

void write_tagged_stack_json(JsonWriter& w, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    w.key("stack").begin_array().end_array();
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  write_stack_json(w, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated);
}

}  // namespace

namespace {

// --slowest: the first of the slowest pairs the analyzer kept.
std::vector<LatencyPair> slowest_pairs(const LatencyPass& result, const ReportOptions& options) {
  if (options.slowest == 0) return {};
  std::vector<LatencyPair> slowest = result.analyzer.top();
  if (slowest.size() > options.slowest) slowest.resize(options.slowest);
  return slowest;
}

}  // namespace

std::string latency_json(const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  const ProbeCatalog& catalog = input.catalog();
  const LatencyAnalyzer& analyzer = result.analyzer;
  const StackStore* stacks = result.stacks.get();
  const uint64_t lost = result.lost;
  const bool want_stacks = options.slowest > 0;
  const std::vector<LatencyPair> slowest = slowest_pairs(result, options);
  const DurationStats& all = analyzer.overall();
  const uint64_t start = input.timeline_start();
  std::string j;
  JsonWriter w(j);
  w.begin_object();
  w.key("start").string(options.start).key("end").string(options.end);
  w.key("key").string(options.key.text());
  write_stats_fields(w, all);
  w.key("unmatched_starts").uint(analyzer.unmatched_starts());
  w.key("unmatched_ends").uint(analyzer.unmatched_ends());
  w.key("missing_key_starts").uint(analyzer.missing_key_starts());
  w.key("missing_key_ends").uint(analyzer.missing_key_ends());
  w.key("lost_events").uint(lost);
  if (options.by) {
    w.key("by").string(options.by->text()).key("groups").begin_array();
    for (const LatencyGroup* g : analyzer.groups()) {
      w.begin_object().key("key").number_text(group_key_text(g->key, true));
      if (g->key.truncated) w.key("key_truncated").boolean(true);
      if (input.hosts_differ() && options.by->kind != KeySpec::Kind::arg &&
          options.by->kind != KeySpec::Kind::host) {
        w.key("host").string(input.files()[g->key.domain].metadata.hostname);
      }
      write_stats_fields(w, g->stats);
      w.end_object();
    }
    w.end_array();
    w.key("pairs_outside_groups").uint(analyzer.pairs_outside_groups());
  }
  if (options.top > 0) {
    w.key("top").begin_array();
    for (const LatencyPair& p : top_pairs(analyzer, options.top)) {
      w.begin_object().key("duration_ns").uint(p.duration).key("start_ns").uint(p.start_time);
      w.key("start_offset_ns").uint(p.start_time - start);
      w.key("pid").uint(p.pid).key("tid").uint(p.tid);
      w.key("key").number_text(pair_key_text(p, options.key, true));
      if (p.key_truncated) w.key("key_truncated").boolean(true);
      w.end_object();
    }
    w.end_array();
  }
  if (want_stacks) {
    w.key("slowest").begin_array();
    for (const LatencyPair& p : slowest) {
      w.begin_object().key("duration_ns").uint(p.duration).key("start_ns").uint(p.start_time);
      w.key("start_offset_ns").uint(p.start_time - start);
      w.key("pid").uint(p.pid).key("tid").uint(p.tid);
      w.key("key").number_text(pair_key_text(p, options.key, true));
      if (p.key_truncated) w.key("key_truncated").boolean(true);
      w.key("start_event")
          .begin_object()
          .key("probe")
          .string(catalog.probe_of_site(p.start_site).shown_name);
      write_tagged_stack_json(w, *stacks, p.start_tag);
      w.end_object();
      if (p.end_tag != 0) {
        w.key("end_event")
            .begin_object()
            .key("probe")
            .string(catalog.probe_of_site(p.end_site).shown_name);
        write_tagged_stack_json(w, *stacks, p.end_tag);
        w.end_object();
      }
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  j += '\n';
  return j;
}

std::string latency_text(const ReportOptions& options, const TraceInput& input, const LatencyPass& result) {
  const ProbeCatalog& catalog = input.catalog();
  const LatencyAnalyzer& analyzer = result.analyzer;
  const StackStore* stacks = result.stacks.get();
  const uint64_t lost = result.lost;
  const bool want_stacks = options.slowest > 0;
  const std::vector<LatencyPair> slowest = slowest_pairs(result, options);
  const DurationStats& all = analyzer.overall();
  const uint64_t start = input.timeline_start();

  std::string t = "latency " + options.start + " -> " + options.end + ", paired on " + options.key.text() + "\n";
  t += "  unmatched starts: " + std::to_string(analyzer.unmatched_starts()) +
       ", unmatched ends: " + std::to_string(analyzer.unmatched_ends());
  if (analyzer.missing_key_starts() + analyzer.missing_key_ends() > 0) {
    t += ", without " + options.key.text() + ": " + std::to_string(analyzer.missing_key_starts()) + " starts, " +
         std::to_string(analyzer.missing_key_ends()) + " ends";
  }
  t += "\n";
  if (lost > 0) {
    t += "  events lost while recording: " + std::to_string(lost) +
         " (the kernel's ring buffer was full): pairs around them may be missing or wrong\n";
  }
  t += "  percentiles within " + json_double(LogLinearHistogram::kRelativeError * 100) +
       "% of the true value (relative_error " + json_double(LogLinearHistogram::kRelativeError) +
       "); count, min, mean and max are exact\n\n";
  t += stats_text(all);
  if (options.by) {
    for (const LatencyGroup* g : analyzer.groups()) {
      t += "\n" + options.by->text() + " " + group_key_text(g->key, false);
      if (input.hosts_differ() && options.by->kind != KeySpec::Kind::arg &&
            options.by->kind != KeySpec::Kind::host) {
        t += " on " + input.files()[g->key.domain].metadata.hostname;
      }
      t += ":\n" + stats_text(g->stats);
    }
    if (analyzer.pairs_outside_groups() > 0) {
      t += "\n(" + std::to_string(analyzer.pairs_outside_groups()) +
           " pairs beyond the first 1000 groups are only in the totals)\n";
    }
  }
  if (options.top > 0) {
    std::vector<LatencyPair> top = top_pairs(analyzer, options.top);
    t += "\nslowest " + std::to_string(top.size()) + " pair" + (top.size() == 1 ? "" : "s") + ":\n";
    t += "  " + std::string("duration_ns") + "  start (s)         pid/tid          " + options.key.text() + "\n";
    for (const LatencyPair& p : top) {
      std::string d = std::to_string(p.duration);
      std::string s = "+" + format_seconds(p.start_time - start);
      std::string pt = std::to_string(p.pid) + "/" + std::to_string(p.tid);
      std::string k = pair_key_text(p, options.key, false);
      t += "  " + std::string(d.size() < 11 ? 11 - d.size() : 0, ' ') + d + "  " + s +
           std::string(s.size() < 18 ? 18 - s.size() : 1, ' ') + pt +
           std::string(pt.size() < 17 ? 17 - pt.size() : 1, ' ') + k + "\n";
    }
  }
  if (want_stacks) {
    t += "\nslowest " + std::to_string(slowest.size()) + " pair" +
         (slowest.size() == 1 ? "" : "s") + " with their stacks:\n";
    for (const LatencyPair& p : slowest) {
      t += "\n  " + std::to_string(p.duration) + " ns at +" + format_seconds(p.start_time - start) +
           " pid/tid " + std::to_string(p.pid) + "/" + std::to_string(p.tid) + ", " +
           options.key.text() + " " + pair_key_text(p, options.key, false) + "\n";
      t += "    start " + catalog.probe_of_site(p.start_site).shown_name + ":\n";
      append_tagged_stack_text(t, *stacks, p.start_tag);
      if (p.end_tag != 0) {
        t += "    end " + catalog.probe_of_site(p.end_site).shown_name + ":\n";
        append_tagged_stack_text(t, *stacks, p.end_tag);
      }
    }
  }
  return t;
}

}  // namespace usdt::report
