#include "report/top/top_screen.h"

#include <algorithm>
#include <cstdio>

#include "report/output/json_writer.h"
#include "report/stats/duration.h"

namespace usdt::report {

namespace {

constexpr size_t kNameWidth = 45;
constexpr size_t kPairNameWidth = 30;

// s cut to width (its end marked with '~'), padded on the right.
std::string column(const std::string& s, size_t width) {
  if (s.size() > width) return s.substr(0, width - 1) + "~";
  return s + std::string(width - s.size(), ' ');
}

// v right-aligned in width.
std::string right(const std::string& v, size_t width) {
  return v.size() >= width ? v : std::string(width - v.size(), ' ') + v;
}

std::string plus_seconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "+%.3f s", static_cast<double>(ns) / 1e9);
  return text;
}

// The state line: recording, ended, or silent.
std::string state_text(const TopScreenInput& in, const TopClock& clock) {
  const uint64_t start = in.pass.start_ns();
  std::string t;
  if (in.state.ended) {
    t = "recording ended";
    if (in.live.files().front().summary) {
      t += " at " + plus_seconds(in.live.files().front().summary->end_monotonic_ns - start);
    }
  } else if (in.state.silent_ns != 0) {
    t = "no progress from the recorder for " + std::to_string(in.state.silent_ns / kSecondNs) +
        " s: stopped or killed?";
  } else if (!in.live.ordered()) {
    t = "recording (a recorder before format 1.8: figures as flushed, up to " +
        plus_seconds(clock.up_to > start ? clock.up_to - start : 0) + ")";
  } else {
    t = "recording, complete up to " + plus_seconds(clock.up_to > start ? clock.up_to - start : 0);
  }
  if (in.live.late_events() != 0) {
    t += "; " + std::to_string(in.live.late_events()) + " events came after their time";
  }
  return t;
}

// The probes to list: most events in the second shown first, then since the
// start, then by name.
std::vector<uint32_t> probe_order(const TopScreenInput& in, const SecondCounts* shown) {
  std::vector<uint32_t> order = in.probes;
  const auto& names = in.live.catalog().probes();
  auto in_second = [&](uint32_t p) { return shown != nullptr ? shown->events[p] : 0; };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (in_second(a) != in_second(b)) return in_second(a) > in_second(b);
    if (in.pass.events()[a] != in.pass.events()[b])
      return in.pass.events()[a] > in.pass.events()[b];
    return names[a].shown_name < names[b].shown_name;
  });
  return order;
}

std::string probes_text(const TopScreenInput& in, const SecondCounts* shown) {
  std::string t = column("PROBE", kNameWidth) + right("EVENTS/S", 9) + right("TOTAL", 13) +
                  right("LOST", 11) + "\n";
  const std::vector<uint32_t> order = probe_order(in, shown);
  size_t rows = 0;
  for (uint32_t p : order) {
    if (rows++ == in.max_probe_rows) {
      t += "(and " + std::to_string(order.size() - in.max_probe_rows) + " more probes)\n";
      break;
    }
    const uint64_t per_s = shown != nullptr ? shown->events[p] : 0;
    t += column(in.live.catalog().probes()[p].shown_name, kNameWidth) +
         right(std::to_string(per_s), 9) + right(std::to_string(in.pass.events()[p]), 13) +
         right(std::to_string(in.pass.lost_per_probe()[p]), 11) + "\n";
  }
  return t;
}

std::string pairs_text(const TopScreenInput& in, const SecondCounts* shown) {
  if (in.pass.pairs().empty()) return "";
  std::string t = "\n" + column("START -> END", kPairNameWidth) + right("PAIRS/S", 9) +
                  right("P50", 9) + right("P99", 9) + right("MAX", 9) + right("TOTAL", 13) + "\n";
  for (size_t i = 0; i < in.pass.pairs().size(); ++i) {
    const DurationStats* s = shown != nullptr ? shown->pairs[i].get() : nullptr;
    const bool any = s != nullptr && s->count() != 0;
    t += column(in.pair_names[i], kPairNameWidth) + right(std::to_string(any ? s->count() : 0), 9) +
         right(any ? short_duration(s->percentile(500)) : "-", 9) +
         right(any ? short_duration(s->percentile(990)) : "-", 9) +
         right(any ? short_duration(s->max()) : "-", 9) +
         right(std::to_string(in.pass.pairs()[i]->total.count()), 13) + "\n";
  }
  return t;
}

}  // namespace

TopClock top_clock(const LiveTrace& live, const TopPass& pass) {
  TopClock c;
  const std::optional<format::TraceSummary>& summary = live.files().front().summary;
  if (live.ended()) {
    c.up_to = summary ? summary->end_monotonic_ns : pass.last_time() + 1;
  } else if (live.ordered()) {
    c.up_to = live.complete_before();
  } else {
    c.up_to = pass.last_time();
  }
  const uint64_t whole = c.up_to > pass.start_ns() ? (c.up_to - pass.start_ns()) / kSecondNs : 0;
  c.has_second = whole > 0;
  c.second = whole > 0 ? whole - 1 : 0;
  return c;
}

std::string short_duration(uint64_t ns) {
  char text[32];
  if (ns < 1000) {
    std::snprintf(text, sizeof text, "%lluns", static_cast<unsigned long long>(ns));
  } else if (ns < 1000000) {
    std::snprintf(text, sizeof text, "%.1fus", static_cast<double>(ns) / 1e3);
  } else if (ns < 1000000000) {
    std::snprintf(text, sizeof text, "%.2fms", static_cast<double>(ns) / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.2fs", static_cast<double>(ns) / 1e9);
  }
  return text;
}

std::string top_text(const TopScreenInput& in) {
  const TopClock clock = top_clock(in.live, in.pass);
  const SecondCounts* shown = clock.has_second ? in.pass.second(clock.second) : nullptr;
  const format::TraceMetadata& m = in.live.files().front().metadata;
  std::string t =
      "usdt-report top: " + in.live.files().front().path + " (host " + m.hostname + ")\n";
  t += state_text(in, clock) + "\n";
  if (clock.has_second) {
    t += "second " + std::to_string(clock.second) + "-" + std::to_string(clock.second + 1) + ": " +
         std::to_string(shown != nullptr ? shown->events_total : 0) + " events/s, " +
         std::to_string(shown != nullptr ? shown->lost : 0) + " lost/s";
  } else {
    t += "no whole second recorded yet";
  }
  t += "; since the start: " + std::to_string(in.pass.events_total()) + " events, " +
       std::to_string(in.pass.lost_total()) + " lost\n\n";
  return t + probes_text(in, shown) + pairs_text(in, shown);
}

std::string top_json(const TopScreenInput& in) {
  const TopClock clock = top_clock(in.live, in.pass);
  const SecondCounts* shown = clock.has_second ? in.pass.second(clock.second) : nullptr;
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("trace").string(in.live.files().front().path);
  w.key("hostname").string(in.live.files().front().metadata.hostname);
  w.key("state").string(in.state.ended            ? "ended"
                        : in.state.silent_ns != 0 ? "silent"
                                                  : "recording");
  w.key("ordered").boolean(in.live.ordered());
  w.key("start_ns").uint(in.pass.start_ns());
  w.key("complete_before_ns").uint(clock.up_to);
  w.key("second").uint_or_null(clock.has_second, clock.second);
  w.key("events_per_s").uint_or_null(clock.has_second, shown != nullptr ? shown->events_total : 0);
  w.key("lost_per_s").uint_or_null(clock.has_second, shown != nullptr ? shown->lost : 0);
  w.key("events").uint(in.pass.events_total());
  w.key("lost").uint(in.pass.lost_total());
  w.key("late_events").uint(in.live.late_events());
  w.key("probes").begin_array();
  for (uint32_t p : in.probes) {
    w.begin_object().key("name").string(in.live.catalog().probes()[p].full_name);
    w.key("events_per_s").uint_or_null(clock.has_second, shown != nullptr ? shown->events[p] : 0);
    w.key("events").uint(in.pass.events()[p]);
    w.key("lost").uint(in.pass.lost_per_probe()[p]).end_object();
  }
  w.end_array().key("pairs").begin_array();
  for (size_t i = 0; i < in.pass.pairs().size(); ++i) {
    const DurationStats* s = shown != nullptr ? shown->pairs[i].get() : nullptr;
    const bool any = s != nullptr && s->count() != 0;
    const DurationStats& total = in.pass.pairs()[i]->total;
    w.begin_object().key("name").string(in.pair_names[i]);
    w.key("pairs_per_s").uint_or_null(clock.has_second, any ? s->count() : 0);
    w.key("p50_ns").uint_or_null(any, any ? s->percentile(500) : 0);
    w.key("p99_ns").uint_or_null(any, any ? s->percentile(990) : 0);
    w.key("max_ns").uint_or_null(any, any ? s->max() : 0);
    w.key("pairs").uint(total.count());
    w.key("max_ns_since_start").uint_or_null(total.count() != 0, total.max()).end_object();
  }
  w.end_array().end_object();
  return out + "\n";
}

}  // namespace usdt::report
