// Small text pieces of usdt-report: durations, wildcards, JSON escaping,
// exact decimal means, and the hash map of the hot paths.
#include <catch2/catch.hpp>
#include <random>
#include <unordered_map>

#include "report/stats/histogram_bucket.h"
#include "report/stats/duration.h"
#include "common/flat_map.h"
#include "report/output/json_text.h"
#include "report/input/wildcard.h"

using namespace usdt::report;

TEST_CASE("durations parse exactly", "[duration]") {
  CHECK(*parse_duration("1.5s") == 1500000000ull);
  CHECK(*parse_duration("200ms") == 200000000ull);
  CHECK(*parse_duration("10us") == 10000ull);
  CHECK(*parse_duration("500ns") == 500ull);
  CHECK(*parse_duration("2") == 2000000000ull);
  CHECK(*parse_duration("0.000000001") == 1ull);
  CHECK(*parse_duration(".5") == 500000000ull);
  CHECK(*parse_duration("1.0000000019s") == 1000000001ull);  // below 1 ns is cut
  CHECK(*parse_duration("0.1ms") == 100000ull);
  CHECK(*parse_duration("18446744073709551615ns") == UINT64_MAX);
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("-1s"));
  CHECK_FALSE(parse_duration("1m"));
  CHECK_FALSE(parse_duration("s"));
  CHECK_FALSE(parse_duration("."));
  CHECK_FALSE(parse_duration("1.5.s"));
  CHECK_FALSE(parse_duration("18446744073709551616ns"));
  CHECK_FALSE(parse_duration("99999999999s"));
  CHECK(parse_duration("x").error().message().find("invalid duration 'x'") == 0);
}

TEST_CASE("seconds print with nanosecond precision", "[duration]") {
  CHECK(format_seconds(12000345678ull) == "12.000345678");
  CHECK(format_seconds(0) == "0.000000000");
  CHECK(format_seconds(999999999) == "0.999999999");
}

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

TEST_CASE("JSON strings are escaped", "[json_text]") {
  CHECK(json_string("demo") == "\"demo\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("l1\nl2\t") == "\"l1\\nl2\\t\"");
  CHECK(json_string(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_string("\xc3\xa9") == "\"\xc3\xa9\"");  // UTF-8 passes through
  CHECK(json_double(1.5) == "1.5");
  CHECK(json_double(1.0 / 0.0) == "null");
  CHECK(json_double(std::nan("")) == "null");
}

TEST_CASE("exact means with three decimals", "[json_text]") {
  CHECK(decimal_ratio(10, 4) == "2.500");
  CHECK(decimal_ratio(2, 3) == "0.667");
  CHECK(decimal_ratio(1, 3) == "0.333");
  CHECK(decimal_ratio(0, 5) == "0.000");
  CHECK(decimal_ratio(5, 0) == "null");
  CHECK(decimal_ratio_signed(-10, 4) == "-2.500");
  unsigned __int128 big = static_cast<unsigned __int128>(UINT64_MAX) * 3;
  CHECK(decimal_ratio(big, 3) == "18446744073709551615.000");
}

TEST_CASE("FlatMap behaves like unordered_map under random inserts and erases", "[flat_map]") {
  std::mt19937_64 rng(7);
  usdt::FlatMap<uint64_t> m;
  std::unordered_map<uint64_t, uint64_t> ref;
  for (int i = 0; i < 200000; ++i) {
    uint64_t key = rng() % 5000;
    switch (rng() % 3) {
      case 0: m[key] += i; ref[key] += i; break;
      case 1: CHECK(m.erase(key) == (ref.erase(key) == 1)); break;
      case 2: {
        const uint64_t* v = m.find(key);
        auto it = ref.find(key);
        REQUIRE((v != nullptr) == (it != ref.end()));
        if (v != nullptr) REQUIRE(*v == it->second);
      }
    }
  }
  CHECK(m.size() == ref.size());
  size_t seen = 0;
  m.for_each([&](uint64_t k, uint64_t v) {
    ++seen;
    CHECK(ref.at(k) == v);
  });
  CHECK(seen == ref.size());
}
