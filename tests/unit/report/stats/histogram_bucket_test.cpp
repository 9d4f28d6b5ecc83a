// Exact decimal means of integer sums, as the JSON outputs print them.
#include <catch2/catch.hpp>

#include "report/stats/histogram_bucket.h"

using namespace usdt::report;

TEST_CASE("exact means with three decimals", "[histogram_bucket]") {
  CHECK(decimal_ratio(10, 4) == "2.500");
  CHECK(decimal_ratio(2, 3) == "0.667");
  CHECK(decimal_ratio(1, 3) == "0.333");
  CHECK(decimal_ratio(0, 5) == "0.000");
  CHECK(decimal_ratio(5, 0) == "null");
  CHECK(decimal_ratio_signed(-10, 4) == "-2.500");
  unsigned __int128 big = static_cast<unsigned __int128>(UINT64_MAX) * 3;
  CHECK(decimal_ratio(big, 3) == "18446744073709551615.000");
}
