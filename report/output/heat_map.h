// Heat maps as SVG (Brendan Gregg's latency heat maps; the code is ours):
// time on x (columns of report/stats/time_grid.h), the value on y in
// log-linear rows, each cell colored by how many values fell in it (on a
// log scale of the count, so that a single outlier still shows). The rows
// run from the smallest to the largest value seen: nothing is clipped. The
// 50th, 90th and 99th percentiles of each column are drawn as lines
// (within a row's width, about 19%). Axes are labelled with their units.
//
// Each cell is a rect with data-n (its count); hovering one shows its time
// span, value range and count. Several panels (one per group) stack in one
// picture, the busiest first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/stats/time_grid.h"

namespace usdt::report {

struct HeatMapPanel {
  std::string title;  // e.g. the group
  TimeGrid grid;      // coarsened by heat_map_svg
};

struct HeatMapOptions {
  std::string title = "Latency heat map";
  std::string subtitle;
  std::string value_name = "latency";  // the y axis
  bool durations = true;               // values are ns (else plain numbers)
  std::string count_name = "pairs";    // what a cell counts
  double width = 1000;
  uint64_t max_columns = 150;
  std::string id = "hm";
  std::string note;  // under the panels (e.g. groups left out)
};

std::string heat_map_svg(std::vector<HeatMapPanel> panels, const HeatMapOptions& options);

// The script and style of every heat map (heat_map_script.cpp).
extern const char* const kHeatMapScript;
extern const char* const kHeatMapStyle;

}  // namespace usdt::report
