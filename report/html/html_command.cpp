#include "report/html/html_command.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/build_info.h"
#include "report/html/html_page.h"
#include "report/html/html_pass.h"
#include "report/output/flame_graph.h"
#include "report/output/heat_map.h"
#include "report/output/json_writer.h"
#include "report/output/latency_output.h"
#include "report/output/output_file.h"
#include "report/output/summary_json.h"
#include "report/output/svg_text.h"

namespace usdt::report {

namespace {

std::string recording_json(const TraceInput& input) {
  std::string j;
  JsonWriter w(j);
  std::vector<std::string> hosts;
  w.begin_object().key("files").begin_array();
  for (const TraceFileInfo& f : input.files()) {
    const format::TraceMetadata& m = f.metadata;
    w.begin_object().key("path").string(f.path).key("hostname").string(m.hostname);
    w.key("kernel_release").string(m.kernel_release).key("arch").string(m.arch);
    w.key("command_line").string(m.command_line).key("recorder_version").string(m.recorder_version);
    w.key("start_realtime_ns").uint(m.start_realtime_ns).end_object();
    hosts.push_back(m.hostname);
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  w.end_array().key("hosts").begin_array();
  for (const std::string& h : hosts) w.string(h);
  w.end_array().end_object();
  return j;
}

// The latency part: the JSON of latency --format json, and the heat map.
void add_latency(const ReportOptions& options, const TraceInput& input,
                 std::optional<LatencyPass>& pairs, HtmlReport& r) {
  r.latency_title = options.start.empty()
                        ? "no pairs asked for"
                        : options.start + " to " + options.end + " on " + options.key.text();
  if (!pairs) return;
  r.latency_json = latency_json(options, input, *pairs);
  if (pairs->grids->all.empty()) return;
  HeatMapOptions map;
  map.subtitle = grouped_count(pairs->grids->all.total()) + " pairs, at the time of their end";
  map.id = "heatmap";
  std::vector<HeatMapPanel> panels;
  panels.push_back(HeatMapPanel{"all pairs", std::move(pairs->grids->all)});
  r.heat_map_svg = heat_map_svg(std::move(panels), map);
}

// One flame graph per probe with stacks.
void add_flame_graphs(const StacksPass& whole, HtmlReport& r) {
  r.stacks_note = why_no_stacks(whole);
  std::map<std::string, std::vector<FoldedStack>> by_probe;
  for (FoldedStack& f : folded_stacks(whole)) by_probe[f.frames[0]].push_back(std::move(f));
  for (auto& [probe, stacks] : by_probe) {
    uint64_t events = 0;
    for (const FoldedStack& f : stacks) events += f.count;
    FlameGraphOptions graph;
    graph.title = probe;
    graph.subtitle = grouped_count(events) + " events with a call stack";
    graph.width = 1180;
    graph.id = "flame" + std::to_string(r.flame_graphs.size() + 1);
    r.flame_graphs.push_back(HtmlFlameGraph{probe, flame_graph_svg(stacks, graph)});
  }
}

}  // namespace

int run_html(const ReportOptions& options, TraceInput& input, CommandIo io) {
  HtmlReport r;
  r.title = options.title.empty() ? "usdt-trace report" : options.title;
  r.generator = std::string("usdt-report ") + kVersion + " (git " + kGitRevision + ")";
  r.recording_json = recording_json(input);
  // One read of the traces for every part (html_pass.h).
  std::vector<std::string> warnings;
  Result<HtmlParts> parts = read_html_parts(options, input, &warnings);
  if (!parts) return command_failed(io, parts.error());
  print_warnings(io.err, warnings);
  r.summary_json = summary_json(parts->summary.facts, input, parts->summary.whole);
  add_latency(options, input, parts->latency, r);
  add_flame_graphs(parts->stacks, r);
  if (Status s = write_output(options.output, html_page(r), io.out); !s)
    return command_failed(io, s.error());
  return 0;
}

}  // namespace usdt::report
