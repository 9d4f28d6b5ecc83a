// Durations: parsing exactly, printing with nanosecond precision.
#include <catch2/catch.hpp>

#include "report/stats/duration.h"

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
