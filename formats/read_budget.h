// The memory a trace reader may hold for what it decodes from one file
// (formats/FORMAT.md section 6, "Memory budget"): the tables it reads at open
// (metadata, probe sites, summary, chunk index, object symbols), the body of
// the table block it is decoding, and the chunks it holds for the merge.
// Every allocation whose size comes from the file is taken from the budget
// before it is made; what does not fit is left out and reported, never
// allocated. The figures are the reader's own accounting (the sizes of what it
// keeps), so that tests and the fuzzer can check them exactly.
//
// The decompressed bytes of table blocks are also counted once each, never
// given back: a file of many table blocks cannot make the reader decompress
// more than the budget, which bounds its time as well as its memory.
#pragma once

#include <cstdint>
#include <string>

namespace usdt::format {

constexpr uint64_t kDefaultReadBudget = 256ull << 20;
// What a reader keeps of its budget for the buffers of a chunk loader (the
// compressed block and a payload buffer kept for the next chunk): this
// much, or a quarter of a smaller budget.
constexpr uint64_t kLoaderBuffers = 4ull << 20;
inline uint64_t loader_buffers(uint64_t limit) {
  return limit / 4 < kLoaderBuffers ? limit / 4 : kLoaderBuffers;
}

class ReadBudget {
 public:
  explicit ReadBudget(uint64_t limit = kDefaultReadBudget) : limit_(limit) {}

  uint64_t limit() const { return limit_; }
  uint64_t held() const { return held_; }
  uint64_t peak() const { return peak_; }
  uint64_t room() const { return limit_ - held_; }
  // How many take() calls were refused so far: a caller compares it before
  // and after a decoder ran to tell "over the budget" from "damaged".
  uint64_t refusals() const { return refusals_; }

  // Takes bytes when they fit in room(); false, taking nothing, when not.
  bool take(uint64_t bytes) {
    if (bytes > room()) {
      ++refusals_;
      return false;
    }
    held_ += bytes;
    if (held_ > peak_) peak_ = held_;
    return true;
  }
  // Notes that extra bytes more than held() were held for a moment.
  void note_transient(uint64_t extra) {
    const uint64_t at = extra > UINT64_MAX - held_ ? UINT64_MAX : held_ + extra;
    if (at > peak_) peak_ = at;
  }
  // Gives back bytes that take() took.
  void give_back(uint64_t bytes) { held_ -= bytes <= held_ ? bytes : held_; }

  // Counts bytes of table blocks about to be decompressed; false (counting
  // nothing) when they would bring the total past the limit.
  bool take_table_bytes(uint64_t bytes) {
    if (bytes > limit_ - table_bytes_) {
      ++refusals_;
      return false;
    }
    table_bytes_ += bytes;
    return true;
  }
  uint64_t table_bytes() const { return table_bytes_; }

 private:
  uint64_t limit_;
  uint64_t held_ = 0;
  uint64_t peak_ = 0;
  uint64_t table_bytes_ = 0;
  uint64_t refusals_ = 0;
};

// Bytes taken from a budget for one decoding: given back when it ends unless
// kept (the caller then holds them). Without a budget (nullptr) every take
// succeeds and nothing is counted.
class BudgetHold {
 public:
  explicit BudgetHold(ReadBudget* budget) : budget_(budget) {}
  BudgetHold(const BudgetHold&) = delete;
  BudgetHold& operator=(const BudgetHold&) = delete;
  ~BudgetHold() {
    if (budget_ != nullptr) budget_->give_back(held_);
  }

  bool take(uint64_t bytes) {
    if (budget_ == nullptr) return true;
    if (!budget_->take(bytes)) return false;
    held_ += bytes;
    return true;
  }
  // Bytes that n elements of size bytes each take, or false when they
  // cannot (the product overflows, or the budget refuses them).
  bool take_array(uint64_t n, uint64_t size) {
    return take(size != 0 && n > UINT64_MAX / size ? UINT64_MAX : n * size);
  }
  // The bytes are the caller's from now on; returns how many.
  uint64_t keep() {
    uint64_t n = held_;
    held_ = 0;
    return n;
  }
  uint64_t held() const { return held_; }

 private:
  ReadBudget* budget_;
  uint64_t held_ = 0;
};

// bytes as a reader of messages wants them: "512 bytes", "40 KiB", "768 MiB"
// (rounded up).
std::string byte_size_text(uint64_t bytes);
// Why a take of bytes was refused: "needs 768 MiB, more than the 250 MiB left
// of the reader's memory budget of 256 MiB".
std::string over_budget_text(uint64_t bytes, const ReadBudget* budget);

// What a string keeps outside its own object: its heap buffer, when the
// bytes do not fit in the object itself (libstdc++ keeps up to 15 inline).
inline uint64_t heap_bytes(const std::string& s) {
  return s.capacity() > 15 ? uint64_t{s.capacity()} + 1 : 0;
}

}  // namespace usdt::format
