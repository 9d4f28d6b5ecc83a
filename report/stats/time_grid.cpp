#include "report/stats/time_grid.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace usdt::report {

int TimeGrid::row_of_unsigned(uint64_t v) {
  if (v < 8) return static_cast<int>(v);
  const int msb = 63 - std::countl_zero(v);
  const int sub = static_cast<int>((v >> (msb - 2)) & 3);
  return 8 + (msb - 3) * 4 + sub;
}

int TimeGrid::row_of(int64_t value) {
  if (value >= 0) return row_of_unsigned(static_cast<uint64_t>(value));
  const uint64_t magnitude = ~static_cast<uint64_t>(value) + 1;
  return -row_of_unsigned(magnitude);  // -1 holds -1, -2 holds -2 ...
}

namespace {

double unsigned_low(int row) {
  if (row < 8) return row;
  const int msb = 3 + (row - 8) / 4, sub = (row - 8) % 4;
  return std::ldexp(4 + sub, msb - 2);
}

}  // namespace

double TimeGrid::row_low(int row) { return row >= 0 ? unsigned_low(row) : -unsigned_low(-row); }

double TimeGrid::row_high(int row) {
  return row >= 0 ? unsigned_low(row + 1) : -unsigned_low(-row + 1);
}

void TimeGrid::add(uint64_t offset_ns, int64_t value) { add_row(offset_ns, row_of(value)); }

void TimeGrid::add_unsigned(uint64_t offset_ns, uint64_t value) {
  add_row(offset_ns, row_of_unsigned(value));
}

void TimeGrid::add_row(uint64_t offset_ns, int row) {
  uint64_t column = (offset_ns / 1000) >> level_;
  while (column >= kMaxColumns) {
    set_level(level_ + 1);
    column >>= 1;
  }
  if (column != last_column_) {
    std::vector<uint64_t>& counts = columns_[column];
    if (counts.empty()) counts.resize(2 * kMaxRow);
    last_column_ = column;
    last_counts_ = counts.data();
  }
  ++last_counts_[row + kMaxRow];
  ++total_;
  min_row_ = std::min(min_row_, row);
  max_row_ = std::max(max_row_, row);
}

void TimeGrid::set_level(unsigned level) {
  if (level <= level_) return;
  last_column_ = UINT64_MAX;  // the columns are rebuilt
  last_counts_ = nullptr;
  std::map<uint64_t, std::vector<uint64_t>> coarser;
  for (auto& [column, counts] : columns_) {
    std::vector<uint64_t>& into = coarser[column >> (level - level_)];
    if (into.empty()) {
      into = std::move(counts);
      continue;
    }
    for (size_t r = 0; r < counts.size(); ++r) into[r] += counts[r];
  }
  columns_ = std::move(coarser);
  level_ = level;
}

void TimeGrid::merge(const TimeGrid& other) {
  set_level(other.level_);
  const unsigned shift = level_ - other.level_;
  for (const auto& [column, counts] : other.columns_) {
    std::vector<uint64_t>& into = columns_[column >> shift];
    if (into.empty()) into.resize(2 * kMaxRow);
    for (size_t r = 0; r < counts.size(); ++r) into[r] += counts[r];
  }
  total_ += other.total_;
  min_row_ = std::min(min_row_, other.min_row_);
  max_row_ = std::max(max_row_, other.max_row_);
}

void TimeGrid::coarsen_to(uint64_t max_columns) {
  max_columns = std::max<uint64_t>(max_columns, 1);
  while (!columns_.empty() && columns_.rbegin()->first >= max_columns) set_level(level_ + 1);
}

}  // namespace usdt::report
