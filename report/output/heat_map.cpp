#include "report/output/heat_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "report/output/svg_text.h"

namespace usdt::report {

namespace {

constexpr double kLeft = 90, kRight = 20, kHeader = 72, kPanelTitle = 20, kAxis = 38, kGap = 14;

std::string rgb(double r, double g, double b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(r)),
                static_cast<int>(std::lround(g)), static_cast<int>(std::lround(b)));
  return buf;
}

// Light yellow (one value) to dark red (the most), by t in [0, 1].
std::string ramp(double t) {
  static constexpr double kStops[][3] = {
      {255, 237, 160}, {254, 178, 76}, {240, 59, 32}, {128, 0, 38}};
  t = std::clamp(t, 0.0, 1.0) * 3;
  const int i = std::min(2, static_cast<int>(t));
  const double f = t - i;
  return rgb(kStops[i][0] + (kStops[i + 1][0] - kStops[i][0]) * f,
             kStops[i][1] + (kStops[i + 1][1] - kStops[i][1]) * f,
             kStops[i][2] + (kStops[i + 1][2] - kStops[i][2]) * f);
}

std::string value_label(double v, bool durations) {
  if (durations) return duration_label(static_cast<uint64_t>(std::max(0.0, v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A step of 1, 2 or 5 times a power of ten, giving at most max_ticks ticks over span.
uint64_t nice_step(uint64_t span, int max_ticks) {
  for (uint64_t step = 1;; step *= 10) {
    for (uint64_t m : {1, 2, 5}) {
      if (span / (step * m) < static_cast<uint64_t>(max_ticks)) return step * m;
    }
    if (step > UINT64_MAX / 100) return step;
  }
}

struct Panel {
  Panel(const HeatMapPanel& p, const HeatMapOptions& o) : in(p), options(o) {}
  const HeatMapPanel& in;
  const HeatMapOptions& options;
  double y0 = 0;  // the plot's top
  double row_height = 0;
  uint64_t c0 = 0, c1 = 0;
  double column_width = 0;
  std::string out;

  int rows() const { return in.grid.max_row() - in.grid.min_row() + 1; }
  double height() const { return kPanelTitle + rows() * row_height + kAxis; }
  double plot_width() const { return options.width - kLeft - kRight; }
  double x_of(uint64_t column) const {
    return kLeft + static_cast<double>(column - c0) * column_width;
  }
  double y_of_row(int row) const { return y0 + (in.grid.max_row() - row) * row_height; }
  double y_of_value(double v) const {
    const int r = TimeGrid::row_of(static_cast<int64_t>(std::llround(v)));
    const double lo = TimeGrid::row_low(r), hi = TimeGrid::row_high(r);
    const double frac = hi != lo ? (v - lo) / (hi - lo) : 0;
    return y_of_row(r) + row_height * (1 - frac);
  }

  // first, last: the columns every panel spans, so that their times line up.
  void layout(double top, uint64_t first, uint64_t last) {
    y0 = top + kPanelTitle;
    row_height =
        std::max(std::clamp(320.0 / rows(), 3.0, 14.0), 60.0 / rows());  // room for the axis label
    c0 = first;
    c1 = last;
    column_width = plot_width() / static_cast<double>(c1 - c0 + 1);
  }

  void cells() {
    uint64_t most = 1;
    for (const auto& [column, counts] : in.grid.columns())
      most = std::max(most, *std::max_element(counts.begin(), counts.end()));
    const double scale = std::log1p(static_cast<double>(most));
    for (const auto& [column, counts] : in.grid.columns()) {
      for (int row = in.grid.min_row(); row <= in.grid.max_row(); ++row) {
        const uint64_t n = counts[static_cast<size_t>(row + TimeGrid::kMaxRow)];
        if (n == 0) continue;
        out += "<rect x=\"" + svg_number(x_of(column)) + "\" y=\"" + svg_number(y_of_row(row)) +
               "\" width=\"" + svg_number(column_width) + "\" height=\"" + svg_number(row_height) +
               "\" fill=\"" + ramp(0.12 + 0.88 * std::log1p(static_cast<double>(n)) / scale) +
               "\" data-n=\"" + std::to_string(n) + "\"/>";
      }
      out += '\n';
    }
  }

  void percentile_line(double p, const char* color, const char* dash) {
    std::string points;
    for (const auto& [column, counts] : in.grid.columns()) {
      uint64_t n = 0;
      for (uint64_t c : counts) n += c;
      if (n == 0) continue;
      const uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(n)));
      uint64_t seen = 0;
      int row = in.grid.min_row();
      for (; row <= in.grid.max_row(); ++row) {
        seen += counts[static_cast<size_t>(row + TimeGrid::kMaxRow)];
        if (seen >= std::max<uint64_t>(rank, 1)) break;
      }
      points += svg_number(x_of(column) + column_width / 2) + "," +
                svg_number(y_of_row(row) + row_height / 2) + " ";
    }
    out += "<polyline class=\"hm-l\" stroke=\"" + std::string(color) + "\" stroke-dasharray=\"" +
           dash + "\" points=\"" + points + "\"/>\n";
  }

  void axes() {
    const double bottom = y0 + rows() * row_height;
    out += "<rect x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(y0) + "\" width=\"" +
           svg_number(plot_width()) + "\" height=\"" + svg_number(bottom - y0) +
           "\" fill=\"none\" stroke=\"#999\"/>\n";
    // Time: ticks at a round step, labelled from the recording's start.
    const uint64_t ns = in.grid.column_ns(), from = c0 * ns, to = (c1 + 1) * ns;
    const uint64_t step = nice_step(to - from, 8);
    for (uint64_t t = (from + step - 1) / step * step; t <= to; t += step) {
      const double x =
          kLeft + static_cast<double>(t - from) / static_cast<double>(to - from) * plot_width();
      out += "<line x1=\"" + svg_number(x) + "\" x2=\"" + svg_number(x) + "\" y1=\"" +
             svg_number(bottom) + "\" y2=\"" + svg_number(bottom + 4) +
             "\" stroke=\"#666\"/><text x=\"" + svg_number(x) + "\" y=\"" +
             svg_number(bottom + 15) + "\" text-anchor=\"middle\">" + xml_text(duration_label(t)) +
             "</text>";
      if (to - t < step) break;
    }
    out += "<text x=\"" + svg_number(kLeft + plot_width() / 2) + "\" y=\"" +
           svg_number(bottom + 31) +
           "\" text-anchor=\"middle\">time since the start of the recording (columns of " +
           xml_text(duration_label(ns)) + ")</text>\n";
    value_ticks();
  }

  // Powers of ten (and 0) within the rows shown, spaced at least 12 px.
  void value_ticks() {
    const double lo = TimeGrid::row_low(in.grid.min_row()),
                 hi = TimeGrid::row_high(in.grid.max_row());
    // The ends of the range, then powers of ten (and 0) within it.
    std::vector<double> ticks = {lo, hi};
    if (lo < 0 && hi > 0) ticks.push_back(0);
    for (double p = 1; p < 9e18; p *= 10) {
      if (p >= lo && p < hi) ticks.push_back(p);
      if (-p >= lo && -p < hi) ticks.push_back(-p);
    }
    std::sort(ticks.begin() + 2, ticks.end());  // the ends first: they are always labelled
    std::vector<double> shown_y;
    for (double v : ticks) {
      const double y = v == hi ? y0 : y_of_value(v);
      const bool crowded = std::any_of(shown_y.begin(), shown_y.end(),
                                       [&](double s) { return std::abs(s - y) < 12; });
      if (crowded) continue;
      shown_y.push_back(y);
      out += "<line x1=\"" + svg_number(kLeft - 4) + "\" x2=\"" + svg_number(kLeft) + "\" y1=\"" +
             svg_number(y) + "\" y2=\"" + svg_number(y) + "\" stroke=\"#666\"/><text x=\"" +
             svg_number(kLeft - 6) + "\" y=\"" + svg_number(y + 4) + "\" text-anchor=\"end\">" +
             xml_text(value_label(v, options.durations)) + "</text>";
    }
    const double mid = y0 + rows() * row_height / 2;
    out += "<text transform=\"translate(14," + svg_number(mid) +
           ") rotate(-90)\" text-anchor=\"middle\">" + xml_text(options.value_name) +
           " (log scale)</text>\n";
  }

  void draw(double top, uint64_t first, uint64_t last) {
    layout(top, first, last);
    out += "<g class=\"hm-p\" data-x0=\"" + svg_number(kLeft) + "\" data-y0=\"" + svg_number(y0) +
           "\" data-cw=\"" + svg_number(column_width) + "\" data-rh=\"" + svg_number(row_height) +
           "\" data-c0=\"" + std::to_string(c0) + "\" data-r1=\"" +
           std::to_string(in.grid.max_row()) + "\" data-ns=\"" +
           std::to_string(in.grid.column_ns()) + "\" data-total=\"" +
           std::to_string(in.grid.total()) + "\">\n";
    out += "<text x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(y0 - 6) + "\">";
    append_xml_text(out, in.title);
    out += "</text>\n";
    cells();
    percentile_line(0.50, "#1f4e9c", "none");
    percentile_line(0.90, "#1b7837", "6,3");
    percentile_line(0.99, "#6a3d9a", "2,2");
    axes();
    out += "</g>\n";
  }
};

std::string legend(const HeatMapOptions& options, double y) {
  std::string s;
  double x = kLeft;
  for (int i = 0; i < 5; ++i) {
    s += "<rect x=\"" + svg_number(x + i * 14) + "\" y=\"" + svg_number(y - 10) +
         "\" width=\"14\" height=\"12\" fill=\"" + ramp(0.12 + 0.22 * i) + "\"/>";
  }
  s += "<text x=\"" + svg_number(x + 76) + "\" y=\"" + svg_number(y) + "\">" +
       xml_text(options.count_name) + " per cell: 1 to the most (log scale)</text>";
  x += 340;
  for (const auto& [name, color, dash] :
       {std::tuple{"p50", "#1f4e9c", "none"}, std::tuple{"p90", "#1b7837", "6,3"},
        std::tuple{"p99", "#6a3d9a", "2,2"}}) {
    s += "<line x1=\"" + svg_number(x) + "\" x2=\"" + svg_number(x + 24) + "\" y1=\"" +
         svg_number(y - 4) + "\" y2=\"" + svg_number(y - 4) + "\" class=\"hm-l\" stroke=\"" +
         color + "\" stroke-dasharray=\"" + dash + "\"/><text x=\"" + svg_number(x + 28) +
         "\" y=\"" + svg_number(y) + "\">" + name + "</text>";
    x += 70;
  }
  return s + "\n";
}

}  // namespace

std::string heat_map_svg(std::vector<HeatMapPanel> panels, const HeatMapOptions& options) {
  std::erase_if(panels, [](const HeatMapPanel& p) { return p.grid.empty(); });
  // One time axis for all: the coarsest panel's columns, the widest span.
  for (HeatMapPanel& p : panels) p.grid.coarsen_to(options.max_columns);
  for (HeatMapPanel& p : panels) {
    for (const HeatMapPanel& other : panels) p.grid.coarsen_like(other.grid);
  }
  uint64_t first = UINT64_MAX, last = 0;
  for (const HeatMapPanel& p : panels) {
    first = std::min(first, p.grid.columns().begin()->first);
    last = std::max(last, p.grid.columns().rbegin()->first);
  }
  std::string body;
  double top = kHeader;
  for (const HeatMapPanel& p : panels) {
    Panel panel(p, options);
    panel.draw(top, first, last);
    body += panel.out;
    top += panel.height() + kGap;
  }
  if (!options.note.empty()) {
    body += "<text class=\"hm-s\" x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(top + 4) +
            "\">" + xml_text(options.note) + "</text>\n";
    top += 16;
  }
  const double height = top + 24;
  const std::string w = svg_number(options.width), h = svg_number(height);
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hm\" id=\"" +
                  xml_text(options.id) + "\" width=\"" + w + "\" height=\"" + h +
                  "\" viewBox=\"0 0 " + w + " " + h + "\" data-durations=\"" +
                  (options.durations ? "1" : "0") + "\" data-count=\"" +
                  xml_text(options.count_name) + "\">\n<style>" + kHeatMapStyle + "</style>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  s += "<text class=\"hm-t\" x=\"" + svg_number(options.width / 2) +
       "\" y=\"24\" text-anchor=\"middle\">" + xml_text(options.title) + "</text>\n";
  s += "<text class=\"hm-s\" x=\"" + svg_number(options.width / 2) +
       "\" y=\"42\" text-anchor=\"middle\">" + xml_text(options.subtitle) + "</text>\n";
  s += legend(options, 60);
  s += body;
  s += "<text class=\"hm-details\" x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(height - 8) +
       "\"> </text>\n";
  s += "<script><![CDATA[" + std::string(kHeatMapScript) + "]]></script>\n</svg>\n";
  return s;
}

}  // namespace usdt::report
