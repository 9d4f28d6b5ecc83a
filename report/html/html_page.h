// The one-file HTML report: what it holds, and the page around it. The
// numbers travel as the JSON of summary and latency --format json,
// embedded as they are (so that the tables hold exactly what those
// commands print), and a script of the page renders them into tables that
// sort and page; the heat map and the flame graphs are inline SVG. A
// Content-Security-Policy forbids every load: the file opens offline and
// asks nothing of the network.
#pragma once

#include <string>
#include <vector>

namespace usdt::report {

struct HtmlFlameGraph {
  std::string probe;
  std::string svg;
};

struct HtmlReport {
  std::string title;
  std::string generator;       // "usdt-report 0.1.0 (git ...)"
  std::string recording_json;  // the files' metadata
  std::string summary_json;
  std::string latency_json;   // empty without --start/--end
  std::string latency_title;  // "start to end on tid"
  std::string heat_map_svg;
  std::vector<HtmlFlameGraph> flame_graphs;
  std::string stacks_note;  // why there are no flame graphs, if there are none
};

std::string html_page(const HtmlReport& report);

// Text for a <script type="application/json"> element: '<' written as
// \u003c, so that no "</script>" or "<!--" can end or change it.
std::string json_for_script(const std::string& json);

// The page's style and script (html_script.cpp).
extern const char* const kHtmlStyle;
extern const char* const kHtmlScript;

}  // namespace usdt::report
