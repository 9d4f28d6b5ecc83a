#include "formats/zstd_codec.h"

#include <zstd.h>

#include <catch2/catch.hpp>

using namespace usdt::format;

namespace {

std::string compress(const std::string& data, int level = 3) {
  auto z = ZstdCompressor::create(level);
  REQUIRE(z.ok());
  std::string frame;
  REQUIRE(z->compress(data, frame).ok());
  return frame;
}

}  // namespace

TEST_CASE("frames carry a checksum and a content size, and round-trip", "[zstd_codec]") {
  std::string data(10000, 'x');
  for (size_t i = 0; i < data.size(); i += 7) data[i] = static_cast<char>(i);
  std::string frame = compress(data);
  CHECK((static_cast<uint8_t>(frame[4]) & 0x04) != 0);
  CHECK(ZSTD_getFrameContentSize(frame.data(), frame.size()) == data.size());
  ZstdDecompressor d;
  std::string out;
  REQUIRE(d.decompress(frame, data.size(), out).ok());
  CHECK(out == data);
  CHECK(compress("").size() > 0);
  // A buffer reused from a longer and from a shorter content holds exactly
  // the new content.
  std::string shorter = data.substr(0, 300);
  REQUIRE(d.decompress(compress(shorter), data.size(), out).ok());
  CHECK(out == shorter);
  REQUIRE(d.decompress(frame, data.size(), out).ok());
  CHECK(out == data);
}

TEST_CASE("damaged or unacceptable frames are refused", "[zstd_codec]") {
  std::string data = "some data to compress, some data to compress, some data";
  std::string frame = compress(data);
  ZstdDecompressor d;
  std::string out = "what a reused buffer held before";
  SECTION("over the size limit") {
    auto s = d.decompress(frame, data.size() - 1, out);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message().find("exceeds the limit") != std::string::npos);
    CHECK(out.empty());
  }
  SECTION("checksum mismatch") {
    frame.back() = static_cast<char>(frame.back() ^ 1);
    auto s = d.decompress(frame, 1 << 20, out);
    REQUIRE_FALSE(s.ok());
    CHECK(out.empty());
  }
  SECTION("bytes after the frame") {
    auto s = d.decompress(frame + "x", 1 << 20, out);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message() == "bytes after the zstd frame");
  }
  SECTION("not a frame") {
    CHECK_FALSE(d.decompress("hello", 1 << 20, out).ok());
    CHECK_FALSE(d.decompress("", 1 << 20, out).ok());
  }
  SECTION("a frame without a checksum") {
    std::string plain(ZSTD_compressBound(data.size()), '\0');
    size_t n = ZSTD_compress(plain.data(), plain.size(), data.data(), data.size(), 3);
    plain.resize(n);
    auto s = d.decompress(plain, 1 << 20, out);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message() == "zstd frame without a content checksum");
  }
  SECTION("truncated") {
    CHECK_FALSE(d.decompress(frame.substr(0, frame.size() - 3), 1 << 20, out).ok());
    CHECK(out.empty());
  }
}

TEST_CASE("an impossible level is an error", "[zstd_codec]") {
  auto z = ZstdCompressor::create(1000);
  REQUIRE_FALSE(z.ok());
  CHECK(z.error().message().find("zstd level 1000") != std::string::npos);
}
