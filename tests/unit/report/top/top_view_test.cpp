// What top counts and shows (report/top/top_pass.h, top_screen.h): the
// events of each second and since the start, the pairs of each second with
// their percentiles, a screen no wider than 80 columns whatever the names.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "formats/trace_writer.h"
#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/pairing/latency_setup.h"
#include "report/top/top_pass.h"
#include "report/top/top_screen.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt;
using namespace usdt::report;
using format::test::TempPath;

namespace {

constexpr uint64_t kStart = 1000000;  // sample_metadata's start_monotonic_ns

// Sites: 0 "prov:start", 1 "prov:end", 2 a probe with a very long name.
std::vector<format::ProbeSite> sites() {
  std::vector<format::ProbeSite> s(3);
  const char* names[] = {"start", "end",
                         "a_probe_whose_name_is_far_too_long_for_any_column_of_the_screen"};
  for (uint32_t i = 0; i < 3; ++i) {
    s[i].id = i;
    s[i].provider = "prov";
    s[i].name = names[i];
  }
  return s;
}

format::Event hit(uint32_t site, uint64_t time, uint32_t tid) {
  format::Event e;
  e.time_ns = time;
  e.pid = 5;
  e.tid = tid;
  e.site_id = site;
  return e;
}

}  // namespace

TEST_CASE("top counts each second, shows the last whole one, fits 80 columns", "[top]") {
  TempPath path;
  auto w = format::TraceWriter::create(path.str(), format::test::sample_metadata(), sites());
  REQUIRE(w.ok());
  // Second 0: 3 pairs of 1 ms on three threads; second 1: one of 5 ms and
  // two events of the long-named probe; second 2: one more start.
  for (uint32_t tid = 1; tid <= 3; ++tid) {
    REQUIRE(w->append(hit(0, kStart + 100000 * tid, tid)).ok());
    REQUIRE(w->append(hit(1, kStart + 100000 * tid + 1000000, tid)).ok());
  }
  REQUIRE(w->append(hit(0, kStart + 1200000000, 7)).ok());
  REQUIRE(w->append(hit(1, kStart + 1205000000, 7)).ok());
  REQUIRE(w->append(hit(2, kStart + 1300000000, 8)).ok());
  REQUIRE(w->append(hit(2, kStart + 1400000000, 8)).ok());
  REQUIRE(w->append(hit(0, kStart + 2100000000, 9)).ok());
  w->note_complete_before(kStart + 2500000000);
  REQUIRE(w->flush().ok());

  auto live = LiveTrace::open(path.str());
  REQUIRE(live.ok());
  ReportOptions pair;
  pair.start = "prov:start";
  pair.end = "prov:end";
  auto config = make_latency_config(pair, (*live)->catalog());
  REQUIRE(config.ok());
  std::vector<LatencyConfig> configs;
  configs.push_back(std::move(*config));
  TopPass top((*live)->catalog(), (*live)->timeline_start(), std::move(configs));
  Result<EventPass> pass = EventPass::open(**live, FilterOptions{}, {.jobs = 1});
  REQUIRE(pass.ok());
  pass->read(**live, top);

  CHECK(top.events_total() == 11);
  CHECK(top.events() == std::vector<uint64_t>{5, 4, 2});  // by probe: start, end, long
  const TopClock clock = top_clock(**live, top);
  REQUIRE(clock.has_second);
  CHECK(clock.second == 1);  // [1 s, 2 s): complete up to 2.5 s
  const SecondCounts* one = top.second(1);
  REQUIRE(one != nullptr);
  CHECK(one->events_total == 4);
  REQUIRE(one->pairs[0]);
  CHECK(one->pairs[0]->count() == 1);
  CHECK(one->pairs[0]->max() == 5000000);
  CHECK(top.pairs()[0]->total.count() == 4);
  CHECK(top.second(0) == nullptr);  // older than the two kept

  FollowState state;
  const TopScreenInput in{**live, top, state, {"prov:start -> prov:end"}, {0, 1, 2}};
  const std::string text = top_text(in);
  INFO(text);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.size() <= 80);
  CHECK(text.find("second 1-2: 4 events/s, 0 lost/s; since the start: 11 events, 0 lost") !=
        std::string::npos);
  CHECK(text.find("recording, complete up to +2.500 s") != std::string::npos);
  CHECK(text.find("5.00ms") != std::string::npos);  // p50, p99 and max of that second's pair
  const std::string json = top_json(in);
  CHECK(json.find("\"second\":1,\"events_per_s\":4") != std::string::npos);
  CHECK(json.find("{\"name\":\"prov:start -> prov:end\",\"pairs_per_s\":1,\"p50_ns\":") !=
        std::string::npos);
}

TEST_CASE("short_duration fits 7 characters", "[top]") {
  CHECK(short_duration(950) == "950ns");
  CHECK(short_duration(12300) == "12.3us");
  CHECK(short_duration(4560000) == "4.56ms");
  CHECK(short_duration(1200000000) == "1.20s");
}
