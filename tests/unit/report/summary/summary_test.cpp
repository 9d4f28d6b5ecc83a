// summary: counts, rates, the recording's span, late sites, drops by cause.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("summary json counts what was read", "[summary]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"summary", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{\"events\":7,\"lost\":4,\"truncated\":false,") == 0);
  CHECK(o.out.find("\"start_ns\":1000000000,\"end_ns\":1000020000,\"duration_ns\":20000") != std::string::npos);
  CHECK(o.out.find("{\"provider\":\"demo\",\"name\":\"req_done\",\"count\":3,\"lost\":0") != std::string::npos);
  CHECK(o.out.find("{\"provider\":\"demo\",\"name\":\"tick\",\"count\":1,\"lost\":4") != std::string::npos);
  CHECK(o.out.find("\"processes\":[{\"pid\":10,\"comm\":\"server\",\"events\":7}]") != std::string::npos);
  CHECK(o.err.find("usdt-report: warning: 4 events were lost") != std::string::npos);
}

TEST_CASE("summary notices a file summary that disagrees", "[summary]") {
  MemoryTrace t;
  fill_demo(t);
  fmt::TraceSummary s;
  s.end_monotonic_ns = 1000020000;
  s.events = 9;
  s.lost = 4;
  t.set_summary(0, s);
  Output o = run({"summary"}, t);
  CHECK(o.err.find("its summary counts 9 events, 7 could be read") != std::string::npos);
}

TEST_CASE("summary's duration starts when the recorder enabled its events (format 1.5)", "[summary]") {
  MemoryTrace t;
  fill_demo(t);
  fmt::TraceSummary s;
  s.enabled_monotonic_ns = 1000000800;  // the file was made 800 ns before
  s.end_monotonic_ns = 1000020000;
  s.events = 7;
  s.lost = 4;
  t.set_summary(0, s);
  Output o = run({"summary", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"start_ns\":1000000800,\"end_ns\":1000020000,\"duration_ns\":19200") != std::string::npos);
  // 3 req_done in 19.2 us, not in the 20 us since the file was made.
  CHECK(o.out.find("\"name\":\"req_done\",\"count\":3,\"lost\":0,\"rate_per_s\":156250") != std::string::npos);
  // --since counts from the timeline's start (the file's), not the span's.
  Output w = run({"summary", "--format", "json", "--since", "500ns"}, t);
  CHECK(w.out.find("\"start_ns\":1000000800,") != std::string::npos);
  Output later = run({"summary", "--format", "json", "--since", "1us"}, t);
  CHECK(later.out.find("\"start_ns\":1000001000,\"end_ns\":1000020000,\"duration_ns\":19000") != std::string::npos);
}

TEST_CASE("summary says when probes attached during the recording became active",
          "[summary]") {
  // Starts at 1 s monotonic, 2023-11-14 22:13:20 UTC; a plugin dlopen()ed
  // at +2.314 s brings plugin:load and a second site of demo:tick (format 1.4).
  auto fill = [](MemoryTrace& t) {
    fmt::ProbeSite load = site(1, "plugin", "load", 0);
    load.active_since_ns = 3314000000;
    fmt::ProbeSite tick_in_plugin = site(2, "demo", "tick", 0);
    tick_in_plugin.active_since_ns = 3314000000;
    uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                            {site(0, "demo", "tick", 0), load, tick_in_plugin});
    t.add(f, ev(0, 1500000000, 10, 10, {}));
    t.add(f, ev(1, 3400000000, 10, 10, {}));
    t.add(f, ev(2, 3500000000, 10, 10, {}));
  };
  MemoryTrace t;
  fill(t);
  Output o = run({"summary"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("demo:tick                          2           0.800         0\n"
                   "  (1 of its 2 sites attached at +2.314000000 s: no events of that site before)\n"
                   // From its attach at 3.314 s to the last event at 3.5 s.
                   "plugin:load                        1           5.376         0\n"
                   "  (attached at +2.314000000 s, 22:13:22.314 UTC: no events before)\n") != std::string::npos);

  MemoryTrace j;
  fill(j);
  o = run({"summary", "--format", "json"}, j);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"name\":\"tick\",\"count\":2,\"lost\":0,\"rate_per_s\":0.800,\"late_sites\":1,"
                   "\"late_sites_since_ns\":3314000000,\"args\"") != std::string::npos);
  CHECK(o.out.find("\"name\":\"load\",\"count\":1,\"lost\":0,\"rate_per_s\":5.376,"
                   "\"active_since_ns\":3314000000,\"args\"") != std::string::npos);

  // A file of another host: its time moves onto the first file's clock.
  auto fill_two = [](MemoryTrace& t) {
    t.add_file(meta("hostA", 1000000000, 1700000000000000000ull), {site(0, "demo", "tick", 0)});
    fmt::ProbeSite late = site(0, "plugin", "load", 0);
    late.active_since_ns = 8000000000;  // host B's clock is 5 s ahead: +2 s
    uint32_t b = t.add_file(meta("hostB", 6000000000, 1700000000000000000ull), {late});
    t.add(b, ev(0, 8100000000, 10, 10, {}));
  };
  MemoryTrace two;
  fill_two(two);
  o = run({"summary"}, two);
  CHECK(o.out.find("  (attached at +2.000000000 s, 22:13:22.000 UTC: no events before)\n") != std::string::npos);
  MemoryTrace two_json;
  fill_two(two_json);
  o = run({"summary", "--format", "json"}, two_json);
  CHECK(o.out.find("\"active_since_ns\":3000000000") != std::string::npos);
}

TEST_CASE("a summary of probes watched from the start says nothing of attaching",
          "[summary]") {
  MemoryTrace t;
  fill_demo(t);
  CHECK(run({"summary"}, t).out.find("attached") == std::string::npos);
  MemoryTrace j;
  fill_demo(j);
  Output o = run({"summary", "--format", "json"}, j);
  CHECK(o.out.find("active_since") == std::string::npos);
  CHECK(o.out.find("late_sites") == std::string::npos);
}

TEST_CASE("summary shows drops by cause and argument types", "[summary][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output text = run({"summary"}, t);
  CHECK(text.out.find("\ndropped by the recorder: 3 malformed, 120 foreign_process\n") !=
        std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output json = run({"summary", "--format", "json"}, t2);
  CHECK(json.out.find("\"dropped\":{\"malformed\":3,\"foreign_process\":120}") !=
        std::string::npos);
  CHECK(json.out.find("\"name\":\"query\",\"count\":4,\"lost\":0,\"rate_per_s\":200000.000,"
                      "\"args\":[{\"name\":\"arg0\",\"type\":\"string\"},{\"name\":\"arg1\","
                      "\"type\":\"int64\"}]}") != std::string::npos);
  MemoryTrace t3;
  fill_demo(t3);
  Output none = run({"summary", "--format", "json"}, t3);
  CHECK(none.out.find("\"dropped\":{}") != std::string::npos);
  MemoryTrace t4;
  fill_demo(t4);
  CHECK(run({"summary"}, t4).out.find("dropped") == std::string::npos);
}
