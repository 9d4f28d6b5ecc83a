// hist: the distribution of an argument, per group.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("hist json", "[hist]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"hist", "--probe", "demo:req_start", "--arg", "1", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"probe\":\"demo:req_start\",\"arg\":1,\"count\":2,\"missing\":1,\"min\":-5,\"mean\":1.000,\"max\":7,"
        "\"histogram\":[{\"low\":-7,\"high\":-3,\"count\":1},{\"low\":-3,\"high\":-1,\"count\":0},"
        "{\"low\":-1,\"high\":0,\"count\":0},{\"low\":0,\"high\":1,\"count\":0},{\"low\":1,\"high\":2,\"count\":0},"
        "{\"low\":2,\"high\":4,\"count\":0},{\"low\":4,\"high\":8,\"count\":1}]}\n");
}

TEST_CASE("hist refuses a string argument", "[hist][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"hist", "--probe", "db:query", "--arg", "0"}, t);
  CHECK(o.code == 1);
  CHECK(o.err.find("usdt-report: error: argument 0 of db:query is a string: a histogram needs "
                   "numbers\nhint: ") == 0);
  MemoryTrace t2;
  fill_strings(t2, s);
  CHECK(run({"hist", "--probe", "db:query", "--arg", "1"}, t2).code == 0);
}

TEST_CASE("hist --by a string argument", "[hist][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"hist", "--probe", "db:query", "--arg", "1", "--by", "arg0"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\narg0 \"SELECT 1\":\n  count 1, missing 0, min -1, mean -1.000, max -1\n") !=
        std::string::npos);
  CHECK(o.out.find("\narg0 \"SELECT * FROM t\"...:\n  count 1,") != std::string::npos);
  CHECK(o.out.find("\narg0 (argument missing):\n  count 1,") != std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output json =
      run({"hist", "--probe", "db:query", "--arg", "1", "--by", "arg0", "--format", "json"}, t2);
  CHECK(json.out.find("{\"key\":\"SELECT * FROM t\",\"key_truncated\":true,\"count\":1,") !=
        std::string::npos);
  CHECK(json.out.find("{\"key\":null,\"count\":1,") != std::string::npos);
}
