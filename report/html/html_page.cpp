#include "report/html/html_page.h"

#include "report/output/svg_text.h"

namespace usdt::report {

std::string json_for_script(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

void data_block(std::string& out, const char* id, const std::string& json) {
  if (json.empty()) return;
  out += "<script type=\"application/json\" id=\"";
  out += id;
  out += "\">";
  out += json_for_script(json);
  out += "</script>\n";
}

void latency_section(std::string& out, const HtmlReport& r) {
  out += "<section id=\"latency\"><h2>Latency: ";
  append_xml_text(out, r.latency_title);
  out += "</h2>\n";
  if (r.latency_json.empty()) {
    out +=
        "<p class=\"note\">No latency: give --start PROBE and --end PROBE to usdt-report "
        "html.</p></section>\n";
    return;
  }
  out +=
      "<div id=\"latency-overall\"></div>\n<h3>Per group</h3><div id=\"latency-groups\"></div>\n";
  out += "<h3>Over time</h3><div class=\"picture\">" + r.heat_map_svg + "</div>\n";
  out += "<h3>Slowest pairs</h3><div id=\"slowest\"></div></section>\n";
}

void stacks_section(std::string& out, const HtmlReport& r) {
  out += "<section id=\"stacks\"><h2>Call stacks</h2>\n";
  if (r.flame_graphs.empty()) {
    out += "<p class=\"note\">";
    append_xml_text(out, r.stacks_note);
    out += "</p>\n";
  }
  for (const HtmlFlameGraph& g : r.flame_graphs) {
    out += "<h3>";
    append_xml_text(out, g.probe);
    out += "</h3><div class=\"picture\">" + g.svg + "</div>\n";
  }
  out += "</section>\n";
}

}  // namespace

std::string html_page(const HtmlReport& r) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
      "'unsafe-inline'; "
      "style-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  append_xml_text(out, r.title);
  out += "</title>\n<style>" + std::string(kHtmlStyle) + "</style></head>\n<body>\n<header><h1>";
  append_xml_text(out, r.title);
  out += "</h1><p class=\"note\">Made by ";
  append_xml_text(out, r.generator);
  out +=
      ". <a href=\"#recording\">Recording</a> · <a href=\"#summary\">Summary</a> · "
      "<a href=\"#latency\">Latency</a> · <a href=\"#stacks\">Call stacks</a></p></header>\n";
  out += "<section id=\"recording\"><h2>Recording</h2><div id=\"files\"></div></section>\n";
  out +=
      "<section id=\"summary\"><h2>Summary</h2><div id=\"totals\"></div>\n"
      "<h3>Probes</h3><div id=\"probes\"></div>\n<h3>Lost and dropped events</h3><div "
      "id=\"lost\"></div>\n"
      "<h3>Processes</h3><div id=\"processes\"></div></section>\n";
  latency_section(out, r);
  stacks_section(out, r);
  data_block(out, "data-recording", r.recording_json);
  data_block(out, "data-summary", r.summary_json);
  data_block(out, "data-latency", r.latency_json);
  out += "<script>" + std::string(kHtmlScript) + "</script>\n</body></html>\n";
  return out;
}

}  // namespace usdt::report
