// Little-endian, bounds-checked encoding primitives of the trace format
// (formats/FORMAT.md, "Encoding primitives"): fixed-width integers, LEB128
// varints, zigzag, length-prefixed strings. ByteCursor never reads past its
// end: a read that does not fit sets the cursor's failed state and returns 0,
// so decoders check ok() once after a group of reads rather than after each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace usdt::format {

inline uint64_t zigzag_encode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t zigzag_decode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes v as a LEB128 varint at p (at most 10 bytes); returns the new end.
inline char* put_varint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Appends encoded values to a std::string used as a byte buffer.
class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { fixed(v, 2); }
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void varint(uint64_t v) {
    char buf[10];
    out_.append(buf, static_cast<size_t>(put_varint(buf, v) - buf));
  }
  void svarint(int64_t v) { varint(zigzag_encode(v)); }
  void bytes(const void* data, size_t size) { out_.append(static_cast<const char*>(data), size); }
  void str(std::string_view s) {
    varint(s.size());
    out_.append(s.data(), s.size());
  }
  size_t size() const { return out_.size(); }

 private:
  void fixed(uint64_t v, int n) {
    char buf[8];
    for (int i = 0; i < n; ++i) buf[i] = static_cast<char>(v >> (8 * i));
    out_.append(buf, static_cast<size_t>(n));
  }
  std::string& out_;
};

// Reads encoded values from [begin, end). After any failed read, ok() is
// false, every later read returns 0 or empty, and the position stays put.
class ByteCursor {
 public:
  ByteCursor() = default;
  ByteCursor(const void* data, size_t size)
      : p_(static_cast<const uint8_t*>(data)), end_(p_ + size) {}
  explicit ByteCursor(std::string_view s) : ByteCursor(s.data(), s.size()) {}

  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }
  const uint8_t* position() const { return p_; }

  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint16_t u16() { return static_cast<uint16_t>(fixed(2)); }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }

  // LEB128, at most 10 bytes; an overlong or unterminated varint fails.
  // Inlined with its one- and two-byte fast paths: it is the decoder's
  // innermost operation.
  [[gnu::always_inline]] uint64_t varint() {
    if (!ok_) return 0;
    // Fast path: one-byte values dominate the event columns.
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    if (end_ - p_ >= 2 && p_[1] < 0x80) {  // two bytes: time deltas of microseconds
      uint64_t v = (p_[0] & 0x7fu) | (uint64_t{p_[1]} << 7);
      p_ += 2;
      return v;
    }
    return varint_slow();
  }
  int64_t svarint() { return zigzag_decode(varint()); }

  // Reads n varints in a row, handing each to f(index, value), which
  // returns false to stop; false when f stopped or a varint was malformed
  // or cut (the cursor then failed). For the decoder's column loops: the
  // position stays in a register. (Reading one or two bytes without a branch
  // on which was slower: each position then waits for the byte before it.)
  template <typename F>
  [[gnu::always_inline]] bool varints(uint32_t n, F&& f) {
    if (!ok_) return false;
    const uint8_t* p = p_;
    for (uint32_t j = 0; j < n; ++j) {
      uint64_t v;
      if (p < end_ && *p < 0x80) {
        v = *p++;
      } else if (end_ - p >= 2 && p[1] < 0x80) {
        v = (p[0] & 0x7fu) | (uint64_t{p[1]} << 7);
        p += 2;
      } else {
        p_ = p;
        v = varint();
        if (!ok_) return false;
        p = p_;
      }
      if (!f(j, v)) {
        p_ = p;
        return false;
      }
    }
    p_ = p;
    return true;
  }

  // Passes over n varints without decoding them (a column whose values no
  // one reads); false, and the cursor failed, when the bytes end first.
  bool skip_varints(uint32_t n) {
    if (!ok_) return false;
    const uint8_t* p = p_;
    while (n != 0) {
      if (p == end_) {
        ok_ = false;
        return false;
      }
      n -= *p++ < 0x80 ? 1u : 0u;
    }
    p_ = p;
    return true;
  }

  // A varint that must not exceed limit (a count or a length about to be used).
  uint64_t varint_max(uint64_t limit) {
    uint64_t v = varint();
    if (v > limit) {
      ok_ = false;
      return 0;
    }
    return v;
  }

 private:
  [[gnu::noinline]] uint64_t varint_slow() {
    uint64_t v = 0;
    const uint8_t* p = p_;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end_) break;
      uint8_t b = *p++;
      if (shift == 63 && b > 1) break;  // would overflow 64 bits
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        p_ = p;
        return v;
      }
    }
    ok_ = false;
    return 0;
  }

 public:
  // A view of the next size bytes, or an empty view (and failure) when they
  // are not there.
  std::string_view bytes(uint64_t size) {
    if (!ok_ || size > remaining()) {
      ok_ = false;
      return {};
    }
    std::string_view v(reinterpret_cast<const char*>(p_), static_cast<size_t>(size));
    p_ += size;
    return v;
  }
  // A varint length then that many bytes, the length at most max_len.
  std::string str(uint64_t max_len) {
    uint64_t n = varint_max(max_len);
    return std::string(bytes(n));
  }
  // A sub-cursor over the next size bytes.
  ByteCursor sub(uint64_t size) {
    std::string_view v = bytes(size);
    ByteCursor c(v.data(), v.size());
    c.ok_ = ok_;
    return c;
  }
  void skip(uint64_t size) { (void)bytes(size); }

 private:
  uint64_t fixed(int n) {
    if (!ok_ || remaining() < static_cast<size_t>(n)) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    p_ += n;
    return v;
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool ok_ = true;
};

}  // namespace usdt::format
