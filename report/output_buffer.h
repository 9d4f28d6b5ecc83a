// A large output buffer for the per-event commands (dump, export): numbers
// are formatted with std::to_chars straight into it and it reaches the file
// in big fwrite blocks, so printing is not the bottleneck of a dump.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace usdt::report {

class OutputBuffer {
 public:
  static constexpr size_t kFlushAt = 1 << 20;

  explicit OutputBuffer(std::FILE* out) : out_(out), buf_(kFlushAt + kSlack) {}
  ~OutputBuffer() { flush(); }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;

  // Makes room for n more bytes; call before a burst of small appends
  // (one record) so that they need no checks of their own.
  void reserve(size_t n) {
    if (used_ + n > buf_.size()) {
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

  // Writes what is buffered once it passes kFlushAt.
  void maybe_flush() {
    if (used_ >= kFlushAt) flush();
  }
  void flush() {
    if (used_ == 0) return;
    if (out_ != nullptr && std::fwrite(buf_.data(), 1, used_, out_) != used_) failed_ = true;
    used_ = 0;
  }
  bool failed() const { return failed_; }

 private:
  static constexpr size_t kSlack = 64 * 1024;
  std::FILE* out_;
  std::vector<char> buf_;
  size_t used_ = 0;
  bool failed_ = false;
};

}  // namespace usdt::report
