// Heat-map grids (report/stats/time_grid.h): rows of every value, columns
// that coarsen the same way whether filled at once or merged in parts.
#include "report/stats/time_grid.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

using namespace usdt::report;

namespace {

uint64_t sum(const TimeGrid& g) {
  uint64_t n = 0;
  for (const auto& [column, counts] : g.columns()) {
    for (uint64_t c : counts) n += c;
  }
  return n;
}

}  // namespace

TEST_CASE("time grid rows hold their values", "[time_grid]") {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{1000},
                    int64_t{123456789}, std::numeric_limits<int64_t>::max(), int64_t{-1},
                    int64_t{-1000}, std::numeric_limits<int64_t>::min()}) {
    INFO(v);
    const int row = TimeGrid::row_of(v);
    CHECK(row >= -TimeGrid::kMaxRow);
    CHECK(row < TimeGrid::kMaxRow);
    if (v >= 0) {
      CHECK(TimeGrid::row_low(row) <= static_cast<double>(v));
      CHECK(static_cast<double>(v) <=
            TimeGrid::row_high(row));  // (<: but INT64_MAX rounds up as a double)
    } else {
      CHECK(TimeGrid::row_low(row) >= static_cast<double>(v));
    }
  }
  CHECK(TimeGrid::row_of_unsigned(UINT64_MAX) < TimeGrid::kMaxRow);
  // Rows grow with the value: 4 per power of two from 8 on.
  CHECK(TimeGrid::row_of(8) == 8);
  CHECK(TimeGrid::row_of(16) == 12);
  CHECK(TimeGrid::row_of(-16) == -12);
}

TEST_CASE("time grid: one fill and merged parts give the same grid", "[time_grid]") {
  TimeGrid whole, early, late;
  for (uint64_t i = 0; i < 20000; ++i) {
    const uint64_t at = i * 997'000;  // up to about 20 s: the columns coarsen
    const uint64_t value = (i * 7919) % 100000;
    whole.add_unsigned(at, value);
    (i < 7000 ? early : late).add_unsigned(at, value);
  }
  early.merge(late);
  CHECK(early.total() == 20000);
  CHECK(sum(early) == 20000);
  CHECK(early.column_ns() == whole.column_ns());
  CHECK(early.columns() == whole.columns());
  CHECK(early.min_row() == whole.min_row());
  CHECK(early.max_row() == whole.max_row());
  whole.coarsen_to(150);
  CHECK(whole.columns().rbegin()->first < 150);
  CHECK(sum(whole) == 20000);
}
