#include "formats/byte_cursor.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace usdt::format;

TEST_CASE("varints round-trip at every length", "[byte_cursor]") {
  std::string buf;
  ByteWriter w(buf);
  std::vector<uint64_t> values = {0,     1,     127,         128,
                                  16383, 16384, 0xffffffffu, std::numeric_limits<uint64_t>::max()};
  for (int shift = 0; shift < 64; ++shift) values.push_back(uint64_t{1} << shift);
  for (uint64_t v : values) w.varint(v);
  ByteCursor c(buf);
  for (uint64_t v : values) CHECK(c.varint() == v);
  CHECK(c.ok());
  CHECK(c.at_end());
  CHECK(varint_size(0) == 1);
  CHECK(varint_size(128) == 2);
  CHECK(varint_size(std::numeric_limits<uint64_t>::max()) == 10);
}

TEST_CASE("zigzag maps small magnitudes to small numbers", "[byte_cursor]") {
  CHECK(zigzag_encode(0) == 0);
  CHECK(zigzag_encode(-1) == 1);
  CHECK(zigzag_encode(1) == 2);
  CHECK(zigzag_encode(-2) == 3);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{123456789},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    CHECK(zigzag_decode(zigzag_encode(v)) == v);
  }
}

TEST_CASE("malformed varints fail without reading past the end", "[byte_cursor]") {
  SECTION("unterminated") {
    std::string b("\x80\x80", 2);
    ByteCursor c(b);
    CHECK(c.varint() == 0);
    CHECK_FALSE(c.ok());
  }
  SECTION("eleven bytes") {
    std::string b(10, '\xff');
    b.push_back('\x01');
    ByteCursor c(b);
    c.varint();
    CHECK_FALSE(c.ok());
  }
  SECTION("overflowing the tenth byte") {
    std::string b(9, '\xff');
    b.push_back('\x02');
    ByteCursor c(b);
    c.varint();
    CHECK_FALSE(c.ok());
  }
  SECTION("two-byte fast path at the very end") {
    std::string b("\x85", 1);
    ByteCursor c(b);
    c.varint();
    CHECK_FALSE(c.ok());
  }
}

TEST_CASE("a failed cursor stays failed and returns zeros", "[byte_cursor]") {
  std::string b("\x01\x02\x03", 3);
  ByteCursor c(b);
  CHECK(c.u16() == 0x0201);
  CHECK(c.u32() == 0);  // only one byte left
  CHECK_FALSE(c.ok());
  CHECK(c.u8() == 0);  // even though a byte remains
  CHECK(c.remaining() == 1);
}

TEST_CASE("strings and sub-cursors respect their limits", "[byte_cursor]") {
  std::string b;
  ByteWriter w(b);
  w.str("hello");
  w.u64(0x0102030405060708ull);
  ByteCursor c(b);
  CHECK(c.str(5) == "hello");
  ByteCursor sub = c.sub(8);
  CHECK(sub.u64() == 0x0102030405060708ull);
  CHECK(c.at_end());

  ByteCursor limited(b);
  CHECK(limited.str(4).empty());  // longer than allowed
  CHECK_FALSE(limited.ok());

  ByteCursor past(b);
  ByteCursor s2 = past.sub(1000);
  CHECK_FALSE(past.ok());
  CHECK_FALSE(s2.ok());
}

TEST_CASE("varints() reads what varint() reads, and stops where it must", "[byte_cursor]") {
  std::string buf;
  ByteWriter w(buf);
  std::vector<uint64_t> values = {5,     127, 128,      300, 16383,
                                  16384, 0,   1u << 21, 77,  std::numeric_limits<uint64_t>::max(),
                                  200,   3};
  for (uint64_t v : values) w.varint(v);
  const auto n = static_cast<uint32_t>(values.size());
  SECTION("every value, in order, at every length") {
    ByteCursor c(buf);
    std::vector<uint64_t> got;
    CHECK(c.varints(n, [&](uint32_t j, uint64_t v) {
      CHECK(j == got.size());
      got.push_back(v);
      return true;
    }));
    CHECK(got == values);
    CHECK(c.ok());
    CHECK(c.at_end());
  }
  SECTION("a stop by the caller leaves the cursor after the value it stopped at") {
    ByteCursor c(buf);
    CHECK_FALSE(c.varints(n, [&](uint32_t j, uint64_t) { return j < 3; }));
    CHECK(c.ok());
    CHECK(c.varint() == values[4]);
  }
  SECTION("bytes that end inside a value fail at every cut") {
    for (size_t cut = 0; cut < buf.size(); ++cut) {
      ByteCursor c(buf.data(), cut);
      uint32_t seen = 0;
      CHECK_FALSE(c.varints(n, [&](uint32_t, uint64_t) { return ++seen, true; }));
      CHECK_FALSE(c.ok());
      CHECK(seen < n);
    }
  }
  SECTION("an unterminated varint at the end fails") {
    std::string bad = "\x05\x80\x80";
    ByteCursor c(bad);
    CHECK_FALSE(c.varints(2, [](uint32_t, uint64_t) { return true; }));
    CHECK_FALSE(c.ok());
  }
}

TEST_CASE("skip_varints() passes over what varint() would read", "[byte_cursor]") {
  std::string buf;
  ByteWriter w(buf);
  const std::vector<uint64_t> values = {0, 127, 128, 16384, std::numeric_limits<uint64_t>::max(),
                                        1, 300};
  for (uint64_t v : values) w.varint(v);
  for (uint32_t n = 0; n <= values.size(); ++n) {
    ByteCursor skipped(buf);
    REQUIRE(skipped.skip_varints(n));
    ByteCursor read(buf);
    for (uint32_t i = 0; i < n; ++i) read.varint();
    CHECK(skipped.remaining() == read.remaining());
    if (n < values.size()) CHECK(skipped.varint() == values[n]);
  }
  // Cut inside the last varint, or one varint too many: the cursor fails.
  ByteCursor cut(std::string_view(buf.data(), buf.size() - 1));
  CHECK_FALSE(cut.skip_varints(static_cast<uint32_t>(values.size())));
  CHECK_FALSE(cut.ok());
  ByteCursor more(buf);
  CHECK_FALSE(more.skip_varints(static_cast<uint32_t>(values.size()) + 1));
  CHECK_FALSE(more.ok());
}
