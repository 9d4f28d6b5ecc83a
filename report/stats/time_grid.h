// The counts of a heat map: values over time (latency or an argument), in
// cells of a time column and a value row.
//
// Columns are of equal width, a power of two microseconds, from the
// timeline's start: a column's number at one width is its number at half
// that width divided by two, so a grid that grew coarser while it was
// filled (more than kMaxColumns columns) is the same grid whether it was
// filled by one reader or merged from the segments of several, whatever
// width each reached.
//
// Rows are log-linear buckets of the value, 4 per power of two (each about
// 19% wide); 0 to 7 have a row each, negative values mirror the positive
// ones. Every value has a row: nothing is clipped.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace usdt::report {

class TimeGrid {
 public:
  static constexpr int kMaxRow = 256;  // rows are -kMaxRow..kMaxRow-1
  static constexpr uint64_t kMaxColumns = 4096;

  TimeGrid() = default;
  // A copy has its own columns: it does not share the cache of the last one.
  TimeGrid(const TimeGrid& other)
      : level_(other.level_), columns_(other.columns_), total_(other.total_), min_row_(other.min_row_),
        max_row_(other.max_row_) {}
  TimeGrid& operator=(const TimeGrid& other) {
    if (this != &other) *this = TimeGrid(other);
    return *this;
  }
  TimeGrid(TimeGrid&&) = default;  // the map's nodes move with it: the cache stays right
  TimeGrid& operator=(TimeGrid&&) = default;

  // A value at offset ns after the timeline's start.
  void add(uint64_t offset_ns, int64_t value);
  void add_unsigned(uint64_t offset_ns, uint64_t value);
  // Adds other's counts (either may be the coarser).
  void merge(const TimeGrid& other);
  // Doubles the column width until at most max_columns columns remain.
  void coarsen_to(uint64_t max_columns);
  // Doubles the column width until it is at least other's.
  void coarsen_like(const TimeGrid& other) { set_level(other.level_); }

  uint64_t column_ns() const { return uint64_t{1000} << level_; }
  uint64_t total() const { return total_; }
  bool empty() const { return total_ == 0; }
  // Column number -> count per row (index row + kMaxRow).
  const std::map<uint64_t, std::vector<uint64_t>>& columns() const { return columns_; }
  int min_row() const { return min_row_; }
  int max_row() const { return max_row_; }

  static int row_of(int64_t value);
  static int row_of_unsigned(uint64_t value);
  // The smallest value of a row (negative rows: the value nearest 0).
  static double row_low(int row);
  // The first value past the row (negative rows: the farthest from 0).
  static double row_high(int row);

 private:
  void add_row(uint64_t offset_ns, int row);
  void set_level(unsigned level);

  unsigned level_ = 0;
  std::map<uint64_t, std::vector<uint64_t>> columns_;
  // The column added to last (values come in time order): its number and
  // counts, until the columns are rebuilt.
  uint64_t last_column_ = UINT64_MAX;
  uint64_t* last_counts_ = nullptr;
  uint64_t total_ = 0;
  int min_row_ = kMaxRow;
  int max_row_ = -kMaxRow;
};

}  // namespace usdt::report
