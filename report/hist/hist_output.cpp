// hist's text and JSON output.
#include <string>

#include "report/hist/hist_command.h"
#include "report/output/group_key_text.h"
#include "report/output/histogram_text.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"

namespace usdt::report {

namespace {

// The fields of one argument's statistics, into the object w has open.
void write_arg_stats_fields(JsonWriter& w, const ArgStats& s) {
  w.key("count").uint(s.count()).key("missing").uint(s.missing());
  w.key("min").number_text(s.min_text()).key("mean").number_text(s.mean_text()).key("max").number_text(s.max_text());
  w.key("histogram").begin_array();
  for (const HistogramBucket& b : trim_empty_ends(s.buckets())) {
    w.begin_object();
    w.key("low").number_text(b.has_low ? int128_to_string(b.low) : "null");
    w.key("high").number_text(b.has_high ? int128_to_string(b.high) : "null");
    w.key("count").uint(b.count).end_object();
  }
  w.end_array();
}

std::string arg_stats_text(const ArgStats& s) {
  std::string t = "  count " + std::to_string(s.count()) + ", missing " + std::to_string(s.missing());
  if (s.count() > 0) t += ", min " + s.min_text() + ", mean " + s.mean_text() + ", max " + s.max_text();
  t += "\n";
  t += render_histogram_text(trim_empty_ends(s.buckets()), "  ");
  return t;
}

std::string probe_list(const ReportOptions& options) {
  std::string probe_text;
  for (const std::string& p : options.filter.probes) {
    if (!probe_text.empty()) probe_text += ',';
    probe_text += p;
  }
  return probe_text;
}

}  // namespace

std::string hist_json(const ReportOptions& options, const TraceInput& input, const ArgHistogramAnalyzer& analyzer,
                      bool by_host) {
  const std::string probe_text = probe_list(options);
  std::string j;
  JsonWriter w(j);
  w.begin_object().key("probe").string(probe_text).key("arg");
  if (options.arg->name.empty()) {
    w.sint(options.arg->index);
  } else {
    w.string(options.arg->name);
  }
  write_arg_stats_fields(w, analyzer.overall());
  if (options.by) {
    w.key("by").string(options.by->text()).key("groups").begin_array();
    for (const ArgGroup* g : analyzer.groups()) {
      w.begin_object().key("key").number_text(group_key_text(g->key, true));
      if (g->key.truncated) w.key("key_truncated").boolean(true);
      if (by_host) w.key("host").string(input.files()[g->key.domain].metadata.hostname);
      write_arg_stats_fields(w, g->stats);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  j += '\n';
  return j;
}

std::string hist_text(const ReportOptions& options, const TraceInput& input, const ArgHistogramAnalyzer& analyzer,
                      bool by_host) {
  const std::string probe_text = probe_list(options);
  std::string t = probe_text + " " + options.arg->text() + ":\n" + arg_stats_text(analyzer.overall());
  if (options.by) {
    const std::vector<const ArgGroup*> groups = analyzer.groups();
    std::vector<const GroupKey*> keys;
    for (const ArgGroup* g : groups) keys.push_back(&g->key);
    const std::vector<std::string> labels = group_labels(keys);
    for (size_t i = 0; i < groups.size(); ++i) {
      const ArgGroup* g = groups[i];
      t += "\n" + options.by->text() + " " + labels[i];
      if (by_host) t += " on " + input.files()[g->key.domain].metadata.hostname;
      t += ":\n" + arg_stats_text(g->stats);
    }
  }
  return t;
}

}  // namespace usdt::report
