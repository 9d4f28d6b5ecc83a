#include "report/output/flame_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/output/json_writer.h"
#include "report/output/svg_text.h"

namespace usdt::report {

namespace {

constexpr double kPad = 10;
constexpr double kHeader = 66;  // title, subtitle, legend and buttons
constexpr double kFooter = 28;  // the hovered frame's details

struct Node {
  std::string name;
  std::string object;
  uint64_t count = 0;
  uint64_t before = 0;                       // differential: the frame's events before
  std::map<std::string, uint32_t> children;  // by name: siblings in name order
};

class FlameTree {
 public:
  FlameTree() { nodes_.push_back(Node{"all", "", 0, 0, {}}); }

  void add(const FoldedStack& s, bool reverse, bool is_before) {
    uint32_t at = 0;
    count(at, s.count, is_before);
    // Reversed: the probe stays the root, then the innermost frame first.
    for (size_t k = 0; k < s.frames.size(); ++k) {
      const size_t i = !reverse || k == 0 ? k : s.frames.size() - k;
      auto [it, added] = nodes_[at].children.try_emplace(s.frames[i], 0);
      if (added) {
        it->second = static_cast<uint32_t>(nodes_.size());
        nodes_.push_back(Node{s.frames[i], s.objects[i], 0, 0, {}});
      }
      at = it->second;
      count(at, s.count, is_before);
    }
  }

  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  void count(uint32_t at, uint64_t n, bool is_before) {
    (is_before ? nodes_[at].before : nodes_[at].count) += n;
  }
  std::vector<Node> nodes_;
};

// A value in [0, 1) from a name, the same on every run (FNV-1a).
double name_hash(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<double>(h >> 11) / static_cast<double>(1ull << 53);
}

std::string rgb(double r, double g, double b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(r), static_cast<int>(g),
                static_cast<int>(b));
  return buf;
}

// The palette of each object_kind, and of the probe (kind 5) and root (6).
std::string kind_color(int kind, double v1, double v2) {
  switch (kind) {
    case 0:
      return rgb(205 + 50 * v1, 80 * v2 + 40 * v1, 40 * v2);  // the program: red
    case 1:
      return rgb(215 + 35 * v1, 195 + 40 * v2, 60 + 40 * v1);  // libc: yellow
    case 2:
      return rgb(70 + 50 * v1, 175 + 50 * v2, 200 + 50 * v1);  // libraries: aqua
    case 3:
      return rgb(240, 140 + 50 * v1, 30 + 30 * v2);  // the kernel: orange
    case 5:
      return rgb(170 + 30 * v1, 140 + 30 * v2, 215 + 30 * v1);  // a probe: purple
    case 6:
      return rgb(200, 200, 205);  // all
    default:
      return rgb(175 + 30 * v1, 175 + 30 * v1, 175 + 30 * v1);  // unknown: grey
  }
}

std::string diff_color(double delta, double max_delta) {
  if (max_delta <= 0 || delta == 0) return rgb(250, 250, 250);
  const double v = std::min(1.0, std::abs(delta) / max_delta);
  const double fade = 250 - 200 * v;
  return delta > 0 ? rgb(250, fade, fade) : rgb(fade, fade, 250);
}

std::string fitted_label(const std::string& name, double width) {
  const long chars = static_cast<long>(std::floor((width - 3) / 7));
  if (chars < 3) return "";
  // Characters, not bytes: count UTF-8 lead bytes.
  size_t shown = 0, cut = name.size();
  for (size_t i = 0; i < name.size(); ++i) {
    if ((static_cast<unsigned char>(name[i]) & 0xc0) == 0x80) continue;
    if (shown == static_cast<size_t>(chars - 2)) cut = std::min(cut, i);
    ++shown;
  }
  if (shown <= static_cast<size_t>(chars)) return name;
  return name.substr(0, cut) + "..";
}

struct Drawing {
  Drawing(const FlameTree& t, const FlameGraphOptions& o) : tree(t), options(o) {}
  const FlameTree& tree;
  const FlameGraphOptions& options;
  uint64_t total = 0;
  uint64_t total_before = 0;
  double max_delta = 0;
  int max_depth = 0;
  uint64_t hidden_frames = 0, hidden_events = 0;
  std::string out;
  // The distinct (name, object) of the frames drawn, in their first frame's
  // order, and each one's index there.
  std::vector<const Node*> names;
  std::map<std::pair<std::string, std::string>, uint32_t> name_indices;

  uint32_t name_index(const Node& n) {
    auto [it, added] =
        name_indices.try_emplace({n.name, n.object}, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(&n);
    return it->second;
  }
  // The names table: [[name, object], ...] as JSON, for a script element.
  std::string names_json() const {
    std::string j;
    JsonWriter w(j);
    w.begin_array();
    for (const Node* n : names) w.begin_array().string(n->name).string(n->object).end_array();
    w.end_array();
    return j;
  }

  double share_delta(const Node& n) const {
    const double now = total ? static_cast<double>(n.count) / static_cast<double>(total) : 0;
    const double then =
        total_before ? static_cast<double>(n.before) / static_cast<double>(total_before) : 0;
    return now - then;
  }
  double x_of(uint64_t events) const {
    return kPad +
           static_cast<double>(events) / static_cast<double>(total) * (options.width - 2 * kPad);
  }
  double y_of(int depth) const {
    return options.reverse ? kHeader + depth * kFrameHeight
                           : kHeader + (max_depth - depth) * kFrameHeight;
  }

  // The frames drawn and the deepest, before drawing (the height depends on it).
  void measure(uint32_t at, int depth) {
    const Node& n = tree.nodes()[at];
    if (n.count == 0 || x_of(n.count) - kPad < kMinFrameWidth) return;
    max_depth = std::max(max_depth, depth);
    if (options.before) max_delta = std::max(max_delta, std::abs(share_delta(n)));
    for (const auto& [name, child] : n.children) measure(child, depth + 1);
  }

  void frame(uint32_t at, int depth, uint64_t x, int kind_of_parent) {
    const Node& n = tree.nodes()[at];
    if (n.count == 0) return;
    const double w = x_of(n.count) - kPad;
    if (w < kMinFrameWidth) {
      ++hidden_frames;
      hidden_events += n.count;
      return;
    }
    const int kind = depth == 0         ? 6
                     : depth == 1       ? 5
                     : n.object.empty() ? kind_of_parent
                                        : object_kind(n.object);
    const std::string fill = options.before
                                 ? diff_color(share_delta(n), max_delta)
                                 : kind_color(kind, name_hash(n.name, 1), name_hash(n.name, 2));
    // One element a frame (a browser draws big graphs slowly, and a <title>
    // an element slowest): its name and object are an entry of the names
    // table (data-n), shown by the script on hover.
    out += "<rect class=\"fg-f\" data-x=\"" + std::to_string(x) + "\" data-c=\"" +
           std::to_string(n.count) + "\" data-d=\"" + std::to_string(depth) + "\"";
    if (options.before) out += " data-b=\"" + std::to_string(n.before) + "\"";
    out += " data-n=\"" + std::to_string(name_index(n)) + "\" x=\"" + svg_number(x_of(x)) +
           "\" y=\"" + svg_number(y_of(depth)) + "\" width=\"" + svg_number(w) + "\" height=\"" +
           svg_number(kFrameHeight - 1) + "\" fill=\"" + fill + "\"/>";
    // A frame too narrow for a label has no text element (the script makes
    // one when a zoom widens it): big graphs have thousands of them.
    if (const std::string label = fitted_label(n.name, w); !label.empty()) {
      out += "<text class=\"fg-l\" x=\"" + svg_number(x_of(x) + 3) + "\" y=\"" +
             svg_number(y_of(depth) + 11.5) + "\">";
      append_xml_text(out, label);
      out += "</text>";
    }
    out += "\n";
    uint64_t child_x = x;
    for (const auto& [name, child] : n.children) {
      frame(child, depth + 1, child_x, kind == 5 || kind == 6 ? 4 : kind);
      child_x += tree.nodes()[child].count;
    }
  }
};

std::string legend(const FlameGraphOptions& options, double y) {
  if (options.before) {
    return "<text class=\"fg-s\" x=\"" + svg_number(kPad) + "\" y=\"" + svg_number(y) +
           "\">red: a larger share of the events than before; blue: a smaller one</text>\n";
  }
  static constexpr struct {
    int kind;
    const char* name;
  } kKinds[] = {{5, "probe"},           {0, "program"}, {1, "libc"},
                {2, "other libraries"}, {3, "kernel"},  {4, "unknown"}};
  std::string s;
  double x = kPad;
  for (const auto& k : kKinds) {
    s += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y - 10) +
         "\" width=\"12\" height=\"12\" fill=\"" + kind_color(k.kind, 0.5, 0.5) +
         "\"/><text class=\"fg-s\" x=\"" + svg_number(x + 16) + "\" y=\"" + svg_number(y) + "\">" +
         k.name + "</text>";
    x += 30 + 7.5 * static_cast<double>(std::string(k.name).size());
  }
  return s + "\n";
}

}  // namespace

int object_kind(const std::string& object) {
  if (object.empty() || object == "[unknown]") return 4;
  if (object.rfind("[kernel", 0) == 0 || object.rfind("[vdso", 0) == 0) return 3;
  const std::string base = object.substr(object.find_last_of('/') + 1);
  if (base.rfind("libc.so", 0) == 0 || base.rfind("libc-", 0) == 0) return 1;
  if (base.find(".so") != std::string::npos) return 2;
  return 0;
}

std::string flame_graph_svg(const std::vector<FoldedStack>& stacks,
                            const FlameGraphOptions& options) {
  FlameTree tree;
  for (const FoldedStack& s : stacks) tree.add(s, options.reverse, false);
  if (options.before) {
    for (const FoldedStack& s : *options.before) tree.add(s, options.reverse, true);
  }
  Drawing d(tree, options);
  d.total = std::max<uint64_t>(tree.nodes()[0].count, 1);
  d.total_before = tree.nodes()[0].before;
  d.measure(0, 0);
  const double height = kHeader + (d.max_depth + 1) * kFrameHeight + kFooter;
  const std::string w = svg_number(options.width), h = svg_number(height);
  d.frame(0, 0, 0, 4);
  const std::string body = std::move(d.out);
  const std::string names = d.names_json();

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fg\" id=\"" +
                  xml_text(options.id) + "\" width=\"" + w + "\" height=\"" + h +
                  "\" viewBox=\"0 0 " + w + " " + h + "\" data-width=\"" + w + "\" data-total=\"" +
                  std::to_string(tree.nodes()[0].count) + "\"";
  if (options.before) s += " data-before=\"" + std::to_string(d.total_before) + "\"";
  if (options.reverse) s += " data-reverse=\"1\"";
  s += ">\n<style>" + std::string(kFlameGraphStyle) + "</style>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fdfdfd\"/>\n";
  s += "<text class=\"fg-t\" x=\"" + svg_number(options.width / 2) +
       "\" y=\"22\" text-anchor=\"middle\">" + xml_text(options.title) + "</text>\n";
  std::string sub = options.subtitle;
  if (d.hidden_frames > 0) {
    sub += (sub.empty() ? "" : "; ") + std::to_string(d.hidden_frames) + " frames narrower than " +
           svg_number(kMinFrameWidth) + " px not drawn (" + std::to_string(d.hidden_events) +
           " events, in their callers)";
  }
  s += "<text class=\"fg-s\" x=\"" + svg_number(options.width / 2) +
       "\" y=\"40\" text-anchor=\"middle\">" + xml_text(sub) + "</text>\n";
  s += legend(options, 58);
  s += "<text class=\"fg-b fg-reset fg-h\" x=\"" + svg_number(options.width - 200) +
       "\" y=\"22\">Reset zoom</text>";
  s += "<text class=\"fg-b fg-search\" x=\"" + svg_number(options.width - kPad) +
       "\" y=\"22\" text-anchor=\"end\">Search</text>\n";
  s += body;
  const std::string foot = svg_number(height - 10);
  s += "<text class=\"fg-details\" x=\"" + svg_number(kPad) + "\" y=\"" + foot + "\"> </text>";
  s += "<text class=\"fg-matched\" x=\"" + svg_number(options.width - kPad) + "\" y=\"" + foot +
       "\" text-anchor=\"end\"> </text>\n";
  // Not a script to run: data (the type says so), XML-escaped like any text.
  s += "<script type=\"application/json\" class=\"fg-names\">";
  append_xml_text(s, names);
  s += "</script>\n<script><![CDATA[" + std::string(kFlameGraphScript) + "]]></script>\n</svg>\n";
  return s;
}

}  // namespace usdt::report
