// Flame graphs as self-contained interactive SVG (Brendan Gregg's design,
// as flamegraph.pl draws it; the code is ours): one box per frame of the
// folded stacks (report/symbols/stacks_pass.h), as wide as its events, its
// callees on top of it (an icicle, callees below, with reverse), siblings in
// name order, so that equal input gives equal bytes.
//
// In a browser: hovering a frame shows its name, object, count and share;
// a click zooms to it (its callers stay as full-width bars); Search
// highlights the frames matching a regular expression and says what share
// of the events they cover; Reset zoom undoes. The script is in the file:
// nothing is loaded.
//
// Colors say where a frame's code lives: the program, libc, another library,
// the kernel; the probe is the root of its stacks. A differential graph
// (before set) colors each frame by the change of its share of the events
// from before to now: red grew, blue shrank, white unchanged; widths are the
// new counts.
//
// Frames narrower than kMinFrameWidth pixels are not drawn (a browser cannot
// show them); how many and their events are written in the graph.
//
// In the file, a frame is one <rect class="fg-f"> (data-x, data-c, data-d:
// its first event, events and depth; data-n: its entry in the names table,
// a <script type="application/json" class="fg-names"> of [name, object]
// pairs), followed by a <text class="fg-l"> label when it is wide enough.
// No <title> per frame: thousands of them made a browser take seconds to
// draw the graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/symbols/stacks_pass.h"

namespace usdt::report {

struct FlameGraphOptions {
  std::string title = "Flame graph";
  std::string subtitle;  // e.g. the probes and the time window
  bool reverse = false;  // stacks innermost first, drawn top down
  // A differential graph: the stacks before (their shares are compared).
  const std::vector<FoldedStack>* before = nullptr;
  double width = 1200;
  // Used as a prefix of the element ids, so that several graphs can live in
  // one HTML page.
  std::string id = "fg";
};

constexpr double kMinFrameWidth = 0.1;
constexpr double kFrameHeight = 16;

// The graph; stacks as folded_stacks gives them (any order).
std::string flame_graph_svg(const std::vector<FoldedStack>& stacks,
                            const FlameGraphOptions& options);

// The kind of object a frame's code is in, by its path: 0 the program, 1
// libc, 2 another shared library, 3 the kernel, 4 unknown (also "": the
// probe and the truncation mark).
int object_kind(const std::string& object);

// The script and style every flame graph carries (flame_graph_script.cpp).
extern const char* const kFlameGraphScript;
extern const char* const kFlameGraphStyle;

}  // namespace usdt::report
