// A large output buffer for the per-event commands (dump, export): numbers
// are formatted with std::to_chars straight into it and it reaches the file
// in big fwrite blocks, so printing is not the bottleneck of a dump.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace usdt::report {

// Unchecked writers for OutputBuffer::begin() space: each returns the new end.
inline char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
inline char* put(char* p, char c) {
  *p = c;
  return p + 1;
}
template <typename Int>
inline char* put_int(char* p, Int value) {
  return std::to_chars(p, p + 24, value).ptr;
}
// n zero-padded decimal digits of value, two digits per division.
inline char* put_padded(char* p, uint64_t value, int n) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  int i = n;
  while (i >= 2) {
    uint64_t pair = value % 100;
    value /= 100;
    i -= 2;
    p[i] = kPairs[pair * 2];
    p[i + 1] = kPairs[pair * 2 + 1];
  }
  if (i == 1) p[0] = static_cast<char>('0' + value % 10);
  return p + n;
}

// Eight decimal digits of value (< 10^8) as one little-endian word, most
// significant digit in the lowest byte, digit values 0-9 (not yet ASCII).
// SWAR: 4+4 digits in two 32-bit lanes, then 2-digit and 1-digit splits with
// multiply-shift divisions (exact for these ranges), no division chain.
inline uint64_t swar8_digits(uint32_t value) {
  uint64_t hi = value / 10000u, lo = value % 10000u;
  uint64_t y = hi | (lo << 32);
  uint64_t q = ((y * 10486u) >> 20) & 0x0000007F0000007Full;  // lane / 100
  y = q | ((y - q * 100u) << 16);
  q = ((y * 103u) >> 10) & 0x000F000F000F000Full;  // lane / 10
  return q | ((y - q * 10u) << 8);
}
// Exactly 8 zero-padded digits (value < 10^8).
inline char* put_8_digits(char* p, uint32_t value) {
  uint64_t w = swar8_digits(value) + 0x3030303030303030ull;
  std::memcpy(p, &w, 8);
  return p + 8;
}
// 1 to 8 digits without leading zeros (value < 10^8). Stores 8 bytes.
inline char* put_small_u(char* p, uint32_t value) {
  uint64_t w = swar8_digits(value);
  // Leading zero digits are the low zero bytes; keep at least one digit.
  int skip = w == 0 ? 7 : __builtin_ctzll(w) / 8;
  w = (w >> (skip * 8)) + 0x3030303030303030ull;
  std::memcpy(p, &w, 8);
  return p + (8 - skip);
}
// Decimal unsigned, as std::to_chars would print it. Needs 24 bytes of room.
inline char* put_u64(char* p, uint64_t value) {
  if (value < 100000000u) return put_small_u(p, static_cast<uint32_t>(value));
  uint64_t top = value / 100000000u;
  uint32_t low = static_cast<uint32_t>(value % 100000000u);
  if (top < 100000000u) {
    p = put_small_u(p, static_cast<uint32_t>(top));
  } else {
    p = put_small_u(p, static_cast<uint32_t>(top / 100000000u));
    p = put_8_digits(p, static_cast<uint32_t>(top % 100000000u));
  }
  return put_8_digits(p, low);
}
inline char* put_i64(char* p, int64_t value) {
  if (value < 0) {
    *p++ = '-';
    return put_u64(p, 0 - static_cast<uint64_t>(value));
  }
  return put_u64(p, static_cast<uint64_t>(value));
}

// Bytes that are not zeroed when the buffer grows (std::vector<char>'s
// resize zeroes them): a segment's text of many MB would be written twice,
// and on virtual machines each first touch of a page is a costly fault (the
// commit that made this class has the profile).
class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t n) { resize(n); }
  char* data() { return bytes_.get(); }
  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  char& operator[](size_t i) { return bytes_[i]; }
  // Keeps the first min(size, n) bytes; the others are not initialized.
  void resize(size_t n) {
    if (n <= size_) {
      size_ = n;
      return;
    }
    std::unique_ptr<char[]> bigger(new char[n]);
    if (size_ != 0) std::memcpy(bigger.get(), bytes_.get(), size_);
    bytes_ = std::move(bigger);
    size_ = n;
  }
  void swap(ByteBuffer& other) {
    bytes_.swap(other.bytes_);
    std::swap(size_, other.size_);
  }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0;
};

// Text kept in memory (report/input/ordered_segments.h). bytes is reused from one
// segment to the next: only its first `size` bytes are the text, and memory
// once grown is not handed back, so no text pays for fresh pages.
struct MemoryText {
  ByteBuffer bytes;
  size_t size = 0;
};

class OutputBuffer {
 public:
  static constexpr size_t kFlushAt = 1 << 20;

  explicit OutputBuffer(std::FILE* out) : out_(out), buf_(kFlushAt + kSlack) {}
  // Into memory: the text grows in memory->bytes, which holds it (and its
  // size) once this buffer is destroyed; flushes do nothing.
  explicit OutputBuffer(MemoryText* memory) : out_(nullptr), memory_(memory) {
    buf_.swap(memory->bytes);
    if (buf_.size() < kFlushAt + kSlack) buf_.resize(kFlushAt + kSlack);
  }
  ~OutputBuffer() {
    if (memory_ != nullptr) {
      memory_->bytes.swap(buf_);
      memory_->size = used_;
    } else {
      flush();
    }
  }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;

  // Makes room for n more bytes; call before a burst of small appends
  // (one record) so that they need no checks of their own.
  void reserve(size_t n) {
    if (used_ + n > buf_.size()) {
      if (memory_ != nullptr) {
        buf_.resize(std::max(2 * buf_.size(), used_ + n));
        return;
      }
      flush();
      if (n > buf_.size()) buf_.resize(n);
    }
  }

  void append(std::string_view s) {
    reserve(s.size());
    std::memcpy(buf_.data() + used_, s.data(), s.size());
    used_ += s.size();
  }
  void append(char c) {
    reserve(1);
    buf_[used_++] = c;
  }
  template <typename Int>
  void append_int(Int value) {
    reserve(24);
    auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), value);
    used_ = static_cast<size_t>(r.ptr - buf_.data());
  }
  void append_double(double value) {
    reserve(32);
    auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), value);
    used_ = static_cast<size_t>(r.ptr - buf_.data());
  }
  void append_float(float value) {
    reserve(32);
    auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), value);
    used_ = static_cast<size_t>(r.ptr - buf_.data());
  }
  // n zero-padded decimal digits of value (n <= 20).
  void append_padded(uint64_t value, int n) {
    reserve(static_cast<size_t>(n));
    for (int i = n - 1; i >= 0; --i) {
      buf_[used_ + static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
    used_ += static_cast<size_t>(n);
  }

  // Direct access for a hot loop: begin(n) makes room for n bytes and
  // returns where to write; commit(end) takes what was written up to end.
  char* begin(size_t n) {
    reserve(n);
    return buf_.data() + used_;
  }
  void commit(char* end) { used_ = static_cast<size_t>(end - buf_.data()); }

  // Writes what is buffered once it passes kFlushAt.
  void maybe_flush() {
    if (used_ >= kFlushAt) flush();
  }
  void flush() {
    if (used_ == 0 || memory_ != nullptr) return;
    if (out_ != nullptr && std::fwrite(buf_.data(), 1, used_, out_) != used_) failed_ = true;
    used_ = 0;
  }
  bool failed() const { return failed_; }
  // The bytes held: in memory, the text so far (where the next append goes).
  size_t size() const { return used_; }

 private:
  static constexpr size_t kSlack = 64 * 1024;
  std::FILE* out_;
  MemoryText* memory_ = nullptr;
  ByteBuffer buf_;
  size_t used_ = 0;
  bool failed_ = false;
};

}  // namespace usdt::report
