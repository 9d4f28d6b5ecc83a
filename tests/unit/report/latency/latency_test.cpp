// latency: pairs of a start and an end probe, per key and per group.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("latency json", "[latency]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_start", "--end", "demo:req_done", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{\"start\":\"demo:req_start\",\"end\":\"demo:req_done\",\"key\":\"tid\",\"count\":2,"
                   "\"min_ns\":2000,\"mean_ns\":6000.000,\"p50_ns\":2003,") == 0);
  CHECK(o.out.find("\"max_ns\":10000,\"relative_error\":0.00390625") != std::string::npos);
  CHECK(o.out.find("\"histogram\":[{\"low_ns\":2048,\"high_ns\":4096,\"count\":0},") == std::string::npos);
  CHECK(o.out.find("\"histogram\":[{\"low_ns\":1024,\"high_ns\":2048,\"count\":1},{\"low_ns\":2048,\"high_ns\":4096,\"count\":0},"
                   "{\"low_ns\":4096,\"high_ns\":8192,\"count\":0},{\"low_ns\":8192,\"high_ns\":16384,\"count\":1}]") !=
        std::string::npos);
  CHECK(o.out.find("\"unmatched_starts\":1,\"unmatched_ends\":1") != std::string::npos);
}

TEST_CASE("latency on an argument key", "[latency]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "req_start", "--end", "req_done", "--key", "arg0", "--top", "1"}, t);
  REQUIRE(o.code == 0);
  // id 2: 2000 ns, id 1: 10000 ns; end id 9 unmatched; start id 3 unmatched.
  CHECK(o.out.find("count   2\n") != std::string::npos);
  CHECK(o.out.find("max     10000 ns\n") != std::string::npos);
  CHECK(o.out.find("unmatched starts: 1, unmatched ends: 1") != std::string::npos);
  CHECK(o.out.find("slowest 1 pair:") != std::string::npos);
}

TEST_CASE("an unknown probe lists the trace's probes", "[latency]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_strat", "--end", "demo:req_done"}, t);
  CHECK(o.code == 1);
  CHECK(o.err ==
        "usdt-report: error: --start: no probe in the trace matches 'demo:req_strat' (did you mean "
        "'demo:req_start'?); the trace has: demo:req_done, demo:req_start, demo:tick\n");
}

TEST_CASE("latency with no pair says so", "[latency]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_done", "--end", "demo:tick", "--format", "json"}, t);
  CHECK(o.code == 0);
  CHECK(o.out.find("\"count\":0,\"min_ns\":null,\"mean_ns\":null,\"p50_ns\":null") != std::string::npos);
  MemoryTrace t2;
  fill_demo(t2);
  Output text = run({"latency", "--start", "demo:req_done", "--end", "demo:tick"}, t2);
  CHECK(text.out.find("no start/end pair matched") != std::string::npos);
}

TEST_CASE("latency --by a string argument", "[latency][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run(
      {"latency", "--start", "db:query", "--end", "db:done", "--by", "arg0", "--format", "json"},
      t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"count\":4,") != std::string::npos);
  CHECK(o.out.find(
            "{\"key\":\"SELECT * FROM t\",\"key_truncated\":true,\"count\":1,\"min_ns\":500,") !=
        std::string::npos);
  CHECK(o.out.find("{\"key\":\"SELECT 1\",\"count\":1,\"min_ns\":2000,") != std::string::npos);
  CHECK(o.out.find("{\"key\":\"a,\\\"b\\\"\\n\\ufffd\",\"count\":1,\"min_ns\":3000,") !=
        std::string::npos);
  // The NULL query's pair takes the end event's string, "null".
  CHECK(o.out.find("{\"key\":\"null\",\"count\":1,\"min_ns\":100,") != std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output text = run(
      {"latency", "--start", "db:query", "--end", "db:done", "--key", "arg0", "--by", "arg0"}, t2);
  CHECK(text.out.find("\narg0 \"a,\\\"b\\\"\\n\\xff\":\n") != std::string::npos);
  CHECK(text.out.find("\narg0 \"SELECT * FROM t\"...:\n") != std::string::npos);
  CHECK(text.out.find("without arg0: 1 starts, 0 ends") != std::string::npos);
}
