// zstd framing of block bodies (formats/FORMAT.md, "Compression"): every body
// is one zstd frame that records its content size and carries zstd's own
// content checksum (XXH64), so a reader detects a damaged body without a
// checksum of ours. Decompression refuses frames without both, and frames
// larger than the caller's limit, before allocating.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace usdt::format {

// Owns a compression context, reused across chunks.
class ZstdCompressor {
 public:
  static Result<ZstdCompressor> create(int level);
  ZstdCompressor(ZstdCompressor&&) noexcept;
  ZstdCompressor& operator=(ZstdCompressor&&) noexcept;
  ~ZstdCompressor();

  // Replaces out with one checksummed frame holding data.
  Status compress(std::string_view data, std::string& out);

 private:
  struct Impl;
  explicit ZstdCompressor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Owns a decompression context, reused across chunks.
class ZstdDecompressor {
 public:
  ZstdDecompressor();
  ZstdDecompressor(ZstdDecompressor&&) noexcept;
  ZstdDecompressor& operator=(ZstdDecompressor&&) noexcept;
  ~ZstdDecompressor();

  // Decodes exactly one frame filling all of frame into out. Fails (saying
  // why, without offsets) when the frame is malformed, lacks a content size
  // or a checksum, exceeds max_size, or its checksum does not match.
  // out is emptied on failure.
  Status decompress(std::string_view frame, size_t max_size, std::string& out);

 private:
  Status decompress_into(std::string_view frame, size_t max_size, std::string& out);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The most bytes compress() makes of n bytes (a frame's worst case).
size_t zstd_compress_bound(size_t n);

// The content size a frame declares, or UINT64_MAX when it declares none or
// is not a frame; for budgeting before decompress().
uint64_t zstd_content_size(std::string_view frame);

}  // namespace usdt::format
