#include "report/heatmap/heatmap_command.h"

#include <algorithm>
#include <string>
#include <vector>

#include "report/heatmap/arg_grid_pass.h"
#include "report/output/group_key_text.h"
#include "report/output/heat_map.h"
#include "report/output/output_file.h"
#include "report/output/svg_text.h"
#include "report/pairing/latency_pass.h"

namespace usdt::report {

namespace {

std::string pair_subtitle(const ReportOptions& options, const LatencyPass& whole) {
  const LatencyAnalyzer& a = whole.analyzer;
  std::string s = options.start + " to " + options.end + " on " + options.key.text() + ": " +
                  grouped_count(whole.grids->all.total()) + " pairs";
  if (a.unmatched_starts() + a.unmatched_ends() > 0) {
    s += ", unmatched " + grouped_count(a.unmatched_starts()) + " starts and " +
         grouped_count(a.unmatched_ends()) + " ends";
  }
  if (whole.lost > 0) s += ", " + grouped_count(whole.lost) + " events lost while recording";
  return s;
}

// The busiest groups as panels, in key order; what is left out, in note.
std::vector<HeatMapPanel> group_panels(const ReportOptions& options, LatencyPass& whole,
                                       std::string* note) {
  std::vector<std::pair<const GroupKey*, TimeGrid*>> groups;
  for (auto& [key, grid] : whole.grids->groups) groups.emplace_back(&key, &grid);
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.second->total() > b.second->total();
  });
  uint64_t left_out = 0;
  for (size_t i = kMaxHeatMapPanels; i < groups.size(); ++i) left_out += groups[i].second->total();
  if (groups.size() > kMaxHeatMapPanels) {
    *note = std::to_string(groups.size() - kMaxHeatMapPanels) + " more groups (" +
            grouped_count(left_out) + " pairs) are not drawn: the " +
            std::to_string(kMaxHeatMapPanels) + " busiest are";
    groups.resize(kMaxHeatMapPanels);
  }
  if (whole.analyzer.pairs_outside_groups() > 0) {
    *note += (note->empty() ? "" : "; ") + grouped_count(whole.analyzer.pairs_outside_groups()) +
             " pairs beyond the first 1000 groups are in no panel";
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return group_key_less(*a.first, *b.first); });
  std::vector<const GroupKey*> keys;
  for (const auto& g : groups) keys.push_back(g.first);
  const std::vector<std::string> labels = group_labels(keys);
  std::vector<HeatMapPanel> panels;
  for (size_t i = 0; i < groups.size(); ++i) {
    panels.push_back(HeatMapPanel{options.by->text() + " " + labels[i] + ": " +
                                      grouped_count(groups[i].second->total()) +
                                      (groups[i].second->total() == 1 ? " pair" : " pairs"),
                                  std::move(*groups[i].second)});
  }
  return panels;
}

int latency_heatmap(const ReportOptions& options, TraceInput& input, CommandIo io) {
  std::vector<std::string> warnings;
  Result<LatencyPass> whole = read_latency(options, input, true, &warnings);
  if (!whole) return command_failed(io, whole.error());
  print_warnings(io.err, warnings);
  if (whole->grids->all.empty()) {
    print_error(io.err,
                "no pairs of " + options.start + " and " + options.end + " in the selected events");
    return 1;
  }
  HeatMapOptions map;
  map.title = options.title.empty() ? "Latency heat map" : options.title;
  map.subtitle = pair_subtitle(options, *whole);
  std::vector<HeatMapPanel> panels;
  if (options.by) {
    panels = group_panels(options, *whole, &map.note);
  } else {
    panels.push_back(HeatMapPanel{"all pairs", std::move(whole->grids->all)});
  }
  const std::string svg = heat_map_svg(std::move(panels), map);
  if (Status s = write_output(options.output, svg, io.out); !s)
    return command_failed(io, s.error());
  return 0;
}

int arg_heatmap(const ReportOptions& options, TraceInput& input, CommandIo io) {
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  ArgGridPass whole = pass->fold<ArgGridPass>(
      [&](const Segment&) {
        return ArgGridPass(input.catalog(), *options.arg, input.timeline_start());
      },
      [](ArgGridPass& earlier, const ArgGridPass& later) { return earlier.merge(later); });
  print_warnings(io.err, pass->read_problems());
  if (whole.grid.empty()) {
    print_error(io.err, "no selected event has a number in " + options.arg->text());
    return 1;
  }
  HeatMapOptions map;
  std::string probes;
  for (const std::string& p : options.filter.probes) probes += (probes.empty() ? "" : ", ") + p;
  map.title =
      options.title.empty() ? options.arg->text() + " of " + probes + " over time" : options.title;
  map.subtitle = grouped_count(whole.grid.total()) + " events";
  if (whole.missing > 0)
    map.subtitle += ", " + grouped_count(whole.missing) + " without " + options.arg->text();
  if (whole.strings > 0)
    map.subtitle += ", " + grouped_count(whole.strings) + " with a string there (not drawn)";
  map.value_name = options.arg->text();
  map.durations = false;
  map.count_name = "events";
  std::vector<HeatMapPanel> panels;
  panels.push_back(HeatMapPanel{probes, std::move(whole.grid)});
  const std::string svg = heat_map_svg(std::move(panels), map);
  if (Status s = write_output(options.output, svg, io.out); !s)
    return command_failed(io, s.error());
  return 0;
}

}  // namespace

int run_heatmap(const ReportOptions& options, TraceInput& input, CommandIo io) {
  return options.arg ? arg_heatmap(options, input, io) : latency_heatmap(options, input, io);
}

}  // namespace usdt::report
