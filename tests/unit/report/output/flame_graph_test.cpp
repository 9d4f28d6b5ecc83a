// Flame graphs (report/output/flame_graph.h): each frame's events and
// width, siblings in name order, reversed stacks, the differential colors,
// and text that is always well-formed XML.
#include "report/output/flame_graph.h"

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "report/output/svg_text.h"

using namespace usdt::report;

namespace {

FoldedStack stack(std::vector<std::string> frames, uint64_t count) {
  FoldedStack f;
  f.objects.assign(frames.size(), "/opt/app/server");
  f.objects[0] = "";
  f.frames = std::move(frames);
  f.count = count;
  return f;
}

// The names table's names ([[name, object], ...]; names without quotes or
// backslashes), by index.
std::vector<std::string> names_of(const std::string& svg) {
  const size_t at = svg.find("class=\"fg-names\">");
  const std::string table = svg.substr(at, svg.find("</script>", at) - at);
  std::vector<std::string> out;
  static const std::regex kName("\\[&quot;([^&]*)&quot;,");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), kName);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

// Every frame's "name|events|width" in document order.
std::vector<std::string> frames_of(const std::string& svg) {
  const std::vector<std::string> names = names_of(svg);
  std::vector<std::string> out;
  static const std::regex kFrame(
      "<rect class=\"fg-f\" data-x=\"[0-9]+\" data-c=\"([0-9]+)\"[^>]* data-n=\"([0-9]+)\" "
      "x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kFrame); it != std::sregex_iterator();
       ++it) {
    out.push_back(names.at(std::stoul((*it)[2].str())) + "|" + (*it)[1].str() + "|" +
                  (*it)[3].str());
  }
  return out;
}

// The fill of the frame named name.
std::string fill_of(const std::string& svg, const std::string& name) {
  const std::vector<std::string> names = names_of(svg);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != name) continue;
    const size_t at = svg.find("data-n=\"" + std::to_string(i) + "\"");
    if (at == std::string::npos) return "";
    return svg.substr(svg.find("fill=\"", at) + 6, 7);
  }
  return "";
}

}  // namespace

TEST_CASE("flame graph frames carry their events and widths", "[flame_graph]") {
  const std::vector<FoldedStack> stacks = {stack({"p:x", "main", "b"}, 3),
                                           stack({"p:x", "main", "a"}, 1)};
  const std::string svg = flame_graph_svg(stacks, {});
  // 1180 px for 4 events: 295 px an event; siblings in name order.
  CHECK(frames_of(svg) ==
        std::vector<std::string>{"all|4|1180", "p:x|4|1180", "main|4|1180", "a|1|295", "b|3|885"});
  CHECK(svg.find("data-total=\"4\"") != std::string::npos);
  CHECK(svg.find("<script><![CDATA[") != std::string::npos);
  // One element a frame, and a table of the distinct names with their objects.
  CHECK(svg.find("<title>") == std::string::npos);
  CHECK(
      svg.find(
          "[[&quot;all&quot;,&quot;&quot;],[&quot;p:x&quot;,&quot;&quot;],[&quot;main&quot;,&quot;/"
          "opt/app/server&quot;],") != std::string::npos);
}

TEST_CASE("reversed flame graphs start from the innermost frame", "[flame_graph]") {
  FlameGraphOptions options;
  options.reverse = true;
  const std::string svg =
      flame_graph_svg({stack({"p:x", "main", "a"}, 2), stack({"p:x", "other", "a"}, 1)}, options);
  CHECK(frames_of(svg) == std::vector<std::string>{"all|3|1180", "p:x|3|1180", "a|3|1180",
                                                   "main|2|786.67", "other|1|393.33"});
}

TEST_CASE("a differential flame graph colors growth red and shrink blue", "[flame_graph]") {
  const std::vector<FoldedStack> before = {stack({"p:x", "grows"}, 1),
                                           stack({"p:x", "shrinks"}, 3)};
  const std::vector<FoldedStack> after = {stack({"p:x", "grows"}, 6), stack({"p:x", "shrinks"}, 2)};
  FlameGraphOptions options;
  options.before = &before;
  const std::string svg = flame_graph_svg(after, options);
  CHECK(svg.find("data-before=\"4\"") != std::string::npos);
  CHECK(fill_of(svg, "grows") == "#fa3232");    // the most red
  CHECK(fill_of(svg, "shrinks") == "#3232fa");  // the most blue
}

TEST_CASE("flame graph text is escaped and valid UTF-8", "[flame_graph]") {
  const std::string svg =
      flame_graph_svg({stack({"p:x", "a<b>&\"c\"", std::string("bad\xff\x01")}, 1)}, {});
  CHECK(svg.find("a&lt;b&gt;&amp;&quot;c&quot;") != std::string::npos);
  CHECK(svg.find("bad\xef\xbf\xbd\xef\xbf\xbd") != std::string::npos);
  CHECK(svg.find('\xff') == std::string::npos);
}

TEST_CASE("frames narrower than a tenth of a pixel are counted, not drawn", "[flame_graph]") {
  const std::string svg =
      flame_graph_svg({stack({"p:x", "wide"}, 100000), stack({"p:x", "thin"}, 1)}, {});
  CHECK(frames_of(svg) ==
        std::vector<std::string>{"all|100001|1180", "p:x|100001|1180", "wide|100000|1179.99"});
  CHECK(svg.find("1 frames narrower than 0.1 px not drawn (1 events, in their callers)") !=
        std::string::npos);
}

TEST_CASE("objects sort into the program, libc, libraries and the kernel", "[flame_graph]") {
  CHECK(object_kind("/opt/app/server") == 0);
  CHECK(object_kind("/usr/lib/x86_64-linux-gnu/libc.so.6") == 1);
  CHECK(object_kind("/usr/lib/x86_64-linux-gnu/libssl.so.3") == 2);
  CHECK(object_kind("[kernel.kallsyms]") == 3);
  CHECK(object_kind("[unknown]") == 4);
}

TEST_CASE("svg numbers and labels are the same everywhere", "[svg_text]") {
  CHECK(svg_number(12.5) == "12.5");
  CHECK(svg_number(3) == "3");
  CHECK(svg_number(0.004) == "0");
  CHECK(svg_number(-0.001) == "0");
  CHECK(svg_number(786.666) == "786.67");
  CHECK(duration_label(1500000) == "1.5 ms");
  CHECK(duration_label(230000) == "230 us");
  CHECK(duration_label(2000000000) == "2 s");
  CHECK(duration_label(0) == "0 ns");
  CHECK(grouped_count(12345678) == "12,345,678");
}
