#include "report/hist/arg_histogram.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

using namespace usdt::report;

namespace {

uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

uint64_t count_in(const std::vector<HistogramBucket>& buckets, __int128 low, __int128 high) {
  for (const HistogramBucket& b : buckets) {
    if (b.has_low && b.has_high && b.low == low && b.high == high) return b.count;
  }
  return UINT64_MAX;
}

}  // namespace

TEST_CASE("signed log2 buckets mirror negative values", "[arg_histogram]") {
  ArgStats s(std::nullopt);
  for (int64_t v : {-1, -2, -3, -4, 0, 1, 5, 7, 8}) s.add(static_cast<uint64_t>(v), ArgType::signed_int);
  auto b = s.buckets();
  CHECK(count_in(b, -1, 0) == 1);   // -1
  CHECK(count_in(b, -3, -1) == 2);  // -2, -3
  CHECK(count_in(b, -7, -3) == 1);  // -4
  CHECK(count_in(b, 0, 1) == 1);
  CHECK(count_in(b, 1, 2) == 1);
  CHECK(count_in(b, 4, 8) == 2);
  CHECK(count_in(b, 8, 16) == 1);
  CHECK(s.count() == 9);
  CHECK(s.min_text() == "-4");
  CHECK(s.max_text() == "8");
  CHECK(s.mean_text() == "1.222");  // 11 / 9
}

TEST_CASE("unsigned extremes are exact", "[arg_histogram]") {
  ArgStats s(std::nullopt);
  s.add(UINT64_MAX, ArgType::unsigned_int);
  s.add(UINT64_MAX, ArgType::unsigned_int);
  CHECK(s.max_text() == "18446744073709551615");
  CHECK(s.mean_text() == "18446744073709551615.000");
  CHECK(count_in(s.buckets(), static_cast<__int128>(1) << 63, static_cast<__int128>(1) << 64) == 2);
}

TEST_CASE("missing arguments are counted, never as 0", "[arg_histogram]") {
  ArgHistogramConfig c;
  std::vector<SiteInfo> sites(1);
  sites[0].arg_types = {ArgType::unsigned_int, ArgType::unsigned_int};
  c.selected = {1};
  c.sites = {&sites[0]};
  c.arg = ArgRef::positional(1);
  ArgHistogramAnalyzer a(c);
  usdt::format::Event e;
  e.arg_count = 2;
  e.args[1] = 100;
  a.on_event(0, 0, e);
  e.missing_mask = 2;
  a.on_event(0, 0, e);
  e.arg_count = 1;  // a site with fewer arguments
  e.missing_mask = 0;
  a.on_event(0, 0, e);
  CHECK(a.overall().count() == 1);
  CHECK(a.overall().missing() == 2);
  CHECK(a.overall().min_text() == "100");
  CHECK(count_in(a.overall().buckets(), 0, 1) == 0);
}

TEST_CASE("float arguments", "[arg_histogram]") {
  ArgStats s(std::nullopt);
  s.add(bits(2.5), ArgType::float64);
  s.add(bits(-0.5), ArgType::float64);
  CHECK(s.min_text() == "-0.5");
  CHECK(s.max_text() == "2.5");
  CHECK(s.mean_text() == "1");
  CHECK(count_in(s.buckets(), 2, 4) == 1);   // floor(2.5) = 2
  CHECK(count_in(s.buckets(), -1, 0) == 1);  // floor(-0.5) = -1
  float f = 1.25f;
  uint32_t fb;
  std::memcpy(&fb, &f, sizeof fb);
  CHECK(arg_as_double(fb, ArgType::float32) == 1.25);
}

TEST_CASE("hist groups by pid", "[arg_histogram]") {
  ArgHistogramConfig c;
  std::vector<SiteInfo> sites(1);
  sites[0].arg_types = {ArgType::unsigned_int};
  c.selected = {1};
  c.sites = {&sites[0]};
  c.arg = ArgRef::positional(0);
  KeySpec by;
  by.kind = KeySpec::Kind::pid;
  c.by = by;
  c.linear = LinearSpec{0, 100, 10};
  ArgHistogramAnalyzer a(c);
  usdt::format::Event e;
  e.arg_count = 1;
  for (auto [pid, v] : std::vector<std::pair<uint32_t, uint64_t>>{{2, 5}, {1, 15}, {2, 7}, {1, 200}}) {
    e.pid = pid;
    e.args[0] = v;
    a.on_event(0, 0, e);
  }
  auto g = a.groups();
  REQUIRE(g.size() == 2);
  CHECK(g[0]->key.value == 1);
  CHECK(g[0]->stats.count() == 2);
  CHECK(g[0]->stats.buckets().back().count == 1);  // 200 >= MAX
  CHECK(g[1]->key.value == 2);
  CHECK(count_in(g[1]->stats.buckets(), 0, 10) == 2);
  CHECK(a.overall().count() == 4);
}

TEST_CASE("hist groups by a string argument", "[arg_histogram]") {
  ArgHistogramConfig c;
  std::vector<SiteInfo> sites(1);
  sites[0].arg_types = {ArgType::string, ArgType::signed_int};
  c.selected = {1};
  c.sites = {&sites[0]};
  c.arg = ArgRef::positional(1);
  KeySpec by;
  by.kind = KeySpec::Kind::arg;
  by.arg = ArgRef::positional(0);
  c.by = by;
  ArgHistogramAnalyzer a(c);
  struct Row {
    const char* text;
    bool truncated;
    int64_t v;
  };
  for (const Row& row : std::vector<Row>{{"b", false, 5},
                                         {"a", false, -1},
                                         {"b", false, 7},
                                         {"b", true, 1},
                                         {nullptr, false, 3}}) {
    std::string bytes = row.text == nullptr ? "" : row.text;
    usdt::format::StringArg s{bytes, row.truncated};
    usdt::format::Event e;
    e.arg_count = 2;
    e.string_mask = 1;
    if (row.text == nullptr) {
      e.missing_mask = 1;
    } else {
      e.args[0] = reinterpret_cast<uintptr_t>(&s);
    }
    e.args[1] = static_cast<uint64_t>(row.v);
    a.on_event(0, 0, e);
    bytes.assign(bytes.size(), '#');  // the reader reuses its memory
  }
  auto g = a.groups();
  REQUIRE(g.size() == 4);
  CHECK(g[0]->key.text == "a");
  CHECK(g[0]->stats.min_text() == "-1");
  CHECK(g[1]->key.text == "b");
  CHECK(!g[1]->key.truncated);
  CHECK(g[1]->stats.count() == 2);
  CHECK(g[1]->stats.mean_text() == "6.000");
  CHECK(g[2]->key.text == "b");
  CHECK(g[2]->key.truncated);
  CHECK(!g[3]->key.present);
  CHECK(a.overall().count() == 5);
}

TEST_CASE("statistics of two parts merge to those of one pass", "[arg_histogram][segments]") {
  const std::vector<int64_t> values = {5, -3, 0, 1000, -70000, 42, 7, 7, 123456789, -1};
  for (size_t cut = 0; cut <= values.size(); ++cut) {
    ArgStats whole(std::nullopt), first(std::nullopt), second(std::nullopt);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t raw = static_cast<uint64_t>(values[i]);
      whole.add(raw, ArgType::signed_int);
      (i < cut ? first : second).add(raw, ArgType::signed_int);
    }
    whole.add_missing();
    second.add_missing();
    REQUIRE(first.merge(second));
    CHECK(first.count() == whole.count());
    CHECK(first.missing() == whole.missing());
    CHECK(first.min_text() == whole.min_text());
    CHECK(first.max_text() == whole.max_text());
    CHECK(first.mean_text() == whole.mean_text());
    std::vector<HistogramBucket> got = first.buckets(), want = whole.buckets();
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].count == want[i].count);
  }
  // Floating-point sums of both parts would be rounded in another order.
  ArgStats a(std::nullopt), b(std::nullopt), c(std::nullopt);
  a.add(bits(0.1), ArgType::float64);
  b.add(bits(0.2), ArgType::float64);
  CHECK_FALSE(a.merge(b));
  CHECK(a.mean_text() == "0.1");  // unchanged
  CHECK(c.merge(b));              // one part without floats: exact
  CHECK(c.mean_text() == b.mean_text());
}
