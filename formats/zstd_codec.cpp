#include "formats/zstd_codec.h"

#include <zstd.h>

namespace usdt::format {

struct ZstdCompressor::Impl {
  ZSTD_CCtx* ctx = nullptr;
  ~Impl() { ZSTD_freeCCtx(ctx); }
};

ZstdCompressor::ZstdCompressor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZstdCompressor::ZstdCompressor(ZstdCompressor&&) noexcept = default;
ZstdCompressor& ZstdCompressor::operator=(ZstdCompressor&&) noexcept = default;
ZstdCompressor::~ZstdCompressor() = default;

Result<ZstdCompressor> ZstdCompressor::create(int level) {
  auto impl = std::make_unique<Impl>();
  impl->ctx = ZSTD_createCCtx();
  if (!impl->ctx) return Error("cannot create a zstd compression context");
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Error("zstd level " + std::to_string(level) + " is outside " +
                 std::to_string(ZSTD_minCLevel()) + ".." + std::to_string(ZSTD_maxCLevel()));
  }
  size_t r = ZSTD_CCtx_setParameter(impl->ctx, ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(impl->ctx, ZSTD_c_checksumFlag, 1);
  if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(impl->ctx, ZSTD_c_contentSizeFlag, 1);
  if (ZSTD_isError(r)) return Error(std::string("cannot set up zstd: ") + ZSTD_getErrorName(r));
  return ZstdCompressor(std::move(impl));
}

Status ZstdCompressor::compress(std::string_view data, std::string& out) {
  out.resize(ZSTD_compressBound(data.size()));
  size_t n = ZSTD_compress2(impl_->ctx, out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(n)) {
    out.clear();
    return Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  }
  out.resize(n);
  return Status::success();
}

struct ZstdDecompressor::Impl {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~Impl() { ZSTD_freeDCtx(ctx); }
};

ZstdDecompressor::ZstdDecompressor() : impl_(std::make_unique<Impl>()) {}
ZstdDecompressor::ZstdDecompressor(ZstdDecompressor&&) noexcept = default;
ZstdDecompressor& ZstdDecompressor::operator=(ZstdDecompressor&&) noexcept = default;
ZstdDecompressor::~ZstdDecompressor() = default;

Status ZstdDecompressor::decompress(std::string_view frame, size_t max_size, std::string& out) {
  Status s = decompress_into(frame, max_size, out);
  if (!s) out.clear();
  return s;
}

// out keeps its bytes until the frame is known good, then is resized to the
// content: a buffer reused from the chunk before is not zero-filled again
// (a full payload's worth per chunk, a visible part of a read's cost).
Status ZstdDecompressor::decompress_into(std::string_view frame, size_t max_size,
                                         std::string& out) {
  if (!impl_->ctx) return Error("cannot create a zstd decompression context");
  // RFC 8878 section 3.1.1: a 4-byte magic, then the frame header
  // descriptor whose bit 2 is the Content_Checksum_flag. (ZSTD_getFrameHeader
  // would say the same but is not part of zstd's stable API.)
  if (frame.size() < 5 || static_cast<uint8_t>(frame[0]) != 0x28 ||
      static_cast<uint8_t>(frame[1]) != 0xb5 || static_cast<uint8_t>(frame[2]) != 0x2f ||
      static_cast<uint8_t>(frame[3]) != 0xfd) {
    return Error("not a zstd frame");
  }
  if (!(static_cast<uint8_t>(frame[4]) & 0x04)) {
    return Error("zstd frame without a content checksum");
  }
  unsigned long long content_size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content_size == ZSTD_CONTENTSIZE_ERROR) return Error("damaged zstd frame header");
  if (content_size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Error("zstd frame without a content size");
  }
  if (content_size > max_size) {
    return Error("zstd frame content of " + std::to_string(content_size) +
                 " bytes exceeds the limit of " + std::to_string(max_size));
  }
  // The frame must fill the body exactly: trailing bytes would be data a
  // reader silently ignores.
  size_t frame_size = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
  if (ZSTD_isError(frame_size)) {
    return Error(std::string("damaged zstd frame: ") + ZSTD_getErrorName(frame_size));
  }
  if (frame_size != frame.size()) return Error("bytes after the zstd frame");
  const size_t size = static_cast<size_t>(content_size);
  if (out.capacity() < size) {
    // A new buffer of about this size, not the doubled one resize() would
    // make, with the old bytes copied: doubled, it could outgrow what a
    // loader keeps for the next chunk (ChunkLoader::recycle), and each
    // chunk would then fault in a new one.
    out.clear();
    out.reserve(size + size / 8);
  }
  out.resize(size);
  size_t n = ZSTD_decompressDCtx(impl_->ctx, out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) return Error(std::string("zstd decoding failed: ") + ZSTD_getErrorName(n));
  if (n != out.size()) return Error("zstd frame content is shorter than its declared size");
  return Status::success();
}

uint64_t zstd_content_size(std::string_view frame) {
  unsigned long long n = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN) return UINT64_MAX;
  return n;
}

size_t zstd_compress_bound(size_t n) { return ZSTD_compressBound(n); }

}  // namespace usdt::format
