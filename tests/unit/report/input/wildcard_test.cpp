// Probe patterns and their "did you mean".
#include <catch2/catch.hpp>

#include "report/input/wildcard.h"

using namespace usdt::report;

TEST_CASE("probe patterns", "[wildcard]") {
  CHECK(wildcard_match("demo:*", "demo:tick"));
  CHECK(wildcard_match("d?mo:t*k", "demo:tick"));
  CHECK_FALSE(wildcard_match("demo:tock", "demo:tick"));
  CHECK(wildcard_match("*", ""));
  CHECK_FALSE(wildcard_match("?", ""));
  CHECK(probe_pattern_matches("demo:req_*", "demo", "req_start"));
  CHECK_FALSE(probe_pattern_matches("demo:req_*", "other", "req_start"));
  CHECK(probe_pattern_matches("req_start", "demo", "req_start"));  // name alone
  // Function probes: a C++ name with or without its parameters.
  CHECK(probe_pattern_matches("uprobe:ns::twice<int>", "uprobe", "ns::twice<int>(int)"));
  CHECK(probe_pattern_matches("uretprobe:ns::f", "uretprobe", "ns::f() const"));
  CHECK(probe_pattern_matches("ns::twice<int>(int)", "uprobe", "ns::twice<int>(int)"));
  CHECK_FALSE(probe_pattern_matches("uprobe:ns::twice", "uprobe", "ns::twice<int>(int)"));
  CHECK(probe_pattern_matches("ns::twice<int>", "uretprobe", "ns::twice<int>(int)"));
  CHECK_FALSE(probe_pattern_matches("demo:req", "demo", "req(x)"));
  CHECK(probe_pattern_matches("*done", "demo", "req_done"));
  CHECK_FALSE(probe_pattern_matches("req", "demo", "req_start"));
  CHECK(probe_pattern_matches("*:*", "a", "b"));
}

TEST_CASE("did you mean", "[wildcard]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  std::vector<std::string> names = {"demo:req_start", "demo:req_done", "demo:tick"};
  CHECK(closest_match("demo:req_strat", names) == "demo:req_start");
  CHECK(closest_match("demo:tik", names) == "demo:tick");
  CHECK(closest_match("zzzzzzzz", names).empty());
  CHECK(closest_match("sumary", {"summary", "dump"}) == "summary");
}
