#include "report/stats/log_linear_histogram.h"

#include "report/stats/duration_stats.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

using usdt::report::LogLinearHistogram;

namespace {

// Nearest-rank percentile computed exactly on the sorted values.
uint64_t exact_percentile(const std::vector<uint64_t>& sorted, unsigned permille) {
  uint64_t n = sorted.size();
  uint64_t rank = (n * permille + 999) / 1000;
  rank = std::max<uint64_t>(rank, 1);
  return sorted[rank - 1];
}

void check_accuracy(std::vector<uint64_t> values) {
  LogLinearHistogram h;
  for (uint64_t v : values) h.add(v);
  std::sort(values.begin(), values.end());
  for (unsigned permille : {1u, 100u, 250u, 500u, 900u, 990u, 999u, 1000u}) {
    uint64_t exact = exact_percentile(values, permille);
    uint64_t approx = h.value_at_permille(permille, values.front(), values.back());
    double error = std::fabs(static_cast<double>(approx) - static_cast<double>(exact));
    INFO("permille " << permille << " exact " << exact << " approx " << approx);
    CHECK(error <= static_cast<double>(exact) * LogLinearHistogram::kRelativeError);
  }
}

}  // namespace

TEST_CASE("every value falls in a bucket that contains it", "[log_linear_histogram]") {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> probes = {0, 1, 127, 128, 129, 255, 256, 257, 1000, 1u << 20, UINT64_MAX, UINT64_MAX - 1,
                                  uint64_t{1} << 63};
  for (int i = 0; i < 10000; ++i) probes.push_back(rng() >> (rng() % 64));
  for (uint64_t v : probes) {
    size_t b = LogLinearHistogram::bucket_of(v);
    REQUIRE(b < LogLinearHistogram::kBucketCount);
    uint64_t low = LogLinearHistogram::bucket_low(b);
    uint64_t width = LogLinearHistogram::bucket_width(b);
    INFO("value " << v << " bucket " << b << " low " << low << " width " << width);
    CHECK(low <= v);
    CHECK(v - low < width);
    // The width bound behind the stated error: width <= low / 128 above 128.
    if (v >= 128) CHECK(width * 128 <= low);
  }
  CHECK(LogLinearHistogram::bucket_of(UINT64_MAX) == LogLinearHistogram::kBucketCount - 1);
}

TEST_CASE("small values are exact", "[log_linear_histogram]") {
  LogLinearHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.add(v);
  CHECK(h.count() == 100);
  CHECK(h.value_at_permille(500, 1, 100) == 50);
  CHECK(h.value_at_permille(900, 1, 100) == 90);
  CHECK(h.value_at_permille(990, 1, 100) == 99);
  CHECK(h.value_at_permille(1000, 1, 100) == 100);
  CHECK(h.value_at_permille(1, 1, 100) == 1);
}

TEST_CASE("percentiles are within the stated relative error on random data", "[log_linear_histogram]") {
  std::mt19937_64 rng(42);
  SECTION("uniform over a wide range") {
    std::uniform_int_distribution<uint64_t> d(1, 10000000000ull);
    std::vector<uint64_t> v(200000);
    for (auto& x : v) x = d(rng);
    check_accuracy(v);
  }
  SECTION("log-normal latencies") {
    std::lognormal_distribution<double> d(10.0, 2.0);
    std::vector<uint64_t> v(200000);
    for (auto& x : v) x = static_cast<uint64_t>(d(rng)) + 1;
    check_accuracy(v);
  }
  SECTION("few distinct values with heavy ties") {
    std::vector<uint64_t> v;
    for (int i = 0; i < 1000; ++i) v.push_back(1000003);
    for (int i = 0; i < 10; ++i) v.push_back(5);
    v.push_back(UINT64_MAX);
    check_accuracy(v);
  }
  SECTION("tiny sets") {
    check_accuracy({7});
    check_accuracy({300, 70000});
    check_accuracy({0, 0, 1});
  }
}

TEST_CASE("results are clamped to the exact extremes", "[log_linear_histogram]") {
  LogLinearHistogram h;
  h.add(1000001);
  // Alone in its bucket [999424+..): the midpoint would differ, the clamp wins.
  CHECK(h.value_at_permille(500, 1000001, 1000001) == 1000001);
  LogLinearHistogram empty;
  CHECK(empty.value_at_permille(500, 0, 0) == 0);
}

TEST_CASE("log2 counts group power-of-two ranges", "[log_linear_histogram]") {
  LogLinearHistogram h;
  for (uint64_t v : {0ull, 1ull, 2ull, 3ull, 4ull, 1023ull, 1024ull, 2047ull, 2048ull}) h.add(v);
  h.add(UINT64_MAX);
  auto c = h.log2_counts();
  CHECK(c[0] == 1);   // 0
  CHECK(c[1] == 1);   // [1, 2)
  CHECK(c[2] == 2);   // [2, 4)
  CHECK(c[3] == 1);   // [4, 8)
  CHECK(c[10] == 1);  // [512, 1024)
  CHECK(c[11] == 2);  // [1024, 2048)
  CHECK(c[12] == 1);  // [2048, 4096)
  CHECK(c[64] == 1);
  uint64_t total = 0;
  for (uint64_t x : c) total += x;
  CHECK(total == 10);
}

TEST_CASE("merge adds counts", "[log_linear_histogram]") {
  LogLinearHistogram a, b;
  a.add(10);
  b.add(20);
  b.add(30);
  a.merge(b);
  CHECK(a.count() == 3);
  CHECK(a.value_at_permille(500, 10, 30) == 20);
}

TEST_CASE("percentiles of duration stats stay within [min, max]", "[log_linear_histogram][duration_stats]") {
  // All values in one bucket [999424, 1003520), midpoint 1001471.
  SECTION("the midpoint is above the maximum") {
    usdt::report::DurationStats s;
    for (uint64_t v = 999500; v <= 1000001; v += 7) s.add(v);
    for (unsigned permille : {1u, 500u, 990u, 999u, 1000u}) {
      INFO("permille " << permille);
      CHECK(s.percentile(permille) >= s.min());
      CHECK(s.percentile(permille) <= s.max());
    }
    CHECK(s.percentile(990) == s.max());
  }
  SECTION("the midpoint is below the minimum") {
    usdt::report::DurationStats s;
    for (uint64_t v = 1003000; v <= 1003500; v += 5) s.add(v);
    for (unsigned permille : {1u, 500u, 990u, 1000u}) {
      INFO("permille " << permille);
      CHECK(s.percentile(permille) >= s.min());
      CHECK(s.percentile(permille) <= s.max());
    }
    CHECK(s.percentile(10) == s.min());
  }
  SECTION("random spreads") {
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; ++round) {
      usdt::report::DurationStats s;
      uint64_t base = rng() >> (rng() % 60);
      int n = 1 + static_cast<int>(rng() % 50);
      for (int i = 0; i < n; ++i) s.add(base + rng() % (base / 64 + 1));
      for (unsigned permille = 1; permille <= 1000; permille += 37) {
        REQUIRE(s.percentile(permille) >= s.min());
        REQUIRE(s.percentile(permille) <= s.max());
      }
    }
  }
}
