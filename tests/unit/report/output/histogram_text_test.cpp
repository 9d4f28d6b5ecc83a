#include "report/output/histogram_text.h"

#include <catch2/catch.hpp>

#include "report/stats/linear_histogram.h"

using namespace usdt::report;

TEST_CASE("bucket labels follow bpftrace", "[histogram_text]") {
  HistogramBucket b;
  b.low = 0;
  b.high = 1;
  CHECK(bucket_label(b) == "[0]");
  b.low = 1024;
  b.high = 2048;
  CHECK(bucket_label(b) == "[1K, 2K)");
  b.low = static_cast<__int128>(1) << 20;
  b.high = static_cast<__int128>(1) << 21;
  CHECK(bucket_label(b) == "[1M, 2M)");
  b.low = 3072;
  b.high = 3073;
  CHECK(bucket_label(b) == "[3K]");
  b.low = 100;
  b.high = 200;
  CHECK(bucket_label(b) == "[100, 200)");
  b.low = -3;
  b.high = -1;
  CHECK(bucket_label(b) == "[-3, -1)");
  b.low = static_cast<__int128>(1) << 63;
  b.high = static_cast<__int128>(1) << 64;
  CHECK(bucket_label(b) == "[8E, 16E)");
  HistogramBucket below;
  below.has_low = false;
  below.high = 0;
  CHECK(bucket_label(below) == "(..., 0)");
  HistogramBucket above;
  above.low = 1000;
  above.has_high = false;
  CHECK(bucket_label(above) == "[1000, ...)");
}

TEST_CASE("int128 printing", "[histogram_text]") {
  CHECK(int128_to_string(0) == "0");
  CHECK(int128_to_string(-5) == "-5");
  CHECK(int128_to_string(static_cast<__int128>(1) << 64) == "18446744073709551616");
  CHECK(int128_to_string(static_cast<__int128>(INT64_MIN)) == "-9223372036854775808");
}

TEST_CASE("bars scale to the largest count and empty ends are trimmed", "[histogram_text]") {
  std::array<uint64_t, 65> counts{};
  counts[2] = 4;   // [2, 4)
  counts[3] = 52;  // [4, 8)
  counts[5] = 13;  // [16, 32)
  std::vector<HistogramBucket> buckets = trim_empty_ends(log2_buckets(counts));
  REQUIRE(buckets.size() == 4);
  std::string text = render_histogram_text(buckets);
  std::string expected =
      "[2, 4)                 4 |@@@@                                                |\n"
      "[4, 8)                52 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
      "[8, 16)                0 |                                                    |\n"
      "[16, 32)              13 |@@@@@@@@@@@@@                                       |\n";
  CHECK(text == expected);
  CHECK(trim_empty_ends(log2_buckets({})).empty());
  CHECK(render_histogram_text({}).empty());
}

TEST_CASE("linear spec parsing and buckets", "[linear_histogram]") {
  CHECK_FALSE(parse_linear_spec("0,100"));
  CHECK_FALSE(parse_linear_spec("0,100,0"));
  CHECK_FALSE(parse_linear_spec("100,0,10"));
  CHECK_FALSE(parse_linear_spec("0,10000000,1"));
  CHECK_FALSE(parse_linear_spec("a,b,c"));
  auto spec = parse_linear_spec("-10,25,10");
  REQUIRE(spec);
  LinearHistogram h(*spec);
  for (int v : {-11, -10, -1, 0, 9, 10, 24, 25, 1000}) h.add(v);
  auto b = h.buckets();
  REQUIRE(b.size() == 6);  // below, [-10,0), [0,10), [10,20), [20,25), above
  CHECK(!b[0].has_low);
  CHECK(b[0].count == 1);
  CHECK(bucket_label(b[1]) == "[-10, 0)");
  CHECK(b[1].count == 2);
  CHECK(b[2].count == 2);
  CHECK(b[3].count == 1);
  CHECK(bucket_label(b[4]) == "[20, 25)");
  CHECK(b[4].count == 1);
  CHECK(bucket_label(b[5]) == "[25, ...)");
  CHECK(b[5].count == 2);
}
