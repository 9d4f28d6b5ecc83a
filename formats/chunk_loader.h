// Turns one located chunk into a started ChunkDecoder: reads its block,
// checks it against the index entry, decompresses and parses it
// (formats/FORMAT.md section 6, "Decoding a chunk"). Touches no shared
// state, so worker threads run it side by side (formats/chunk_prefetcher.h);
// what went wrong comes back as text for the merger to report in file order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "formats/byte_source.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

// What a chunk became, in the order the checks run: a bad block (frame_error),
// then the frame's declared content size (for the reader's memory cap, which
// only the merger can judge), then a bad frame or payload (decode_error).
struct PreparedChunk {
  std::string frame_error;
  uint64_t content = 0;
  std::string decode_error;
  std::unique_ptr<ChunkDecoder> decoder;  // set when neither error is
};

// What loading needs besides the bytes: the probe table's derived tables
// (outlive the loader) and the per-chunk payload limit.
struct ChunkLoadContext {
  ByteSource* src = nullptr;  // read concurrently: FileSource uses pread
  const std::vector<uint8_t>* site_arg_counts = nullptr;
  const std::vector<uint16_t>* site_string_masks = nullptr;
  const std::vector<uint8_t>* site_frames = nullptr;
  uint64_t max_chunk_payload = 0;
  bool arguments = true;  // false: ChunkDecoder::skip_arguments (ReadFilter::arguments)
  // ChunkDecoder::skip_events_before: where the filter's window starts (0:
  // nowhere).
  uint64_t skip_events_before_ns = 0;
};

// One loader per thread: it owns the buffers and the zstd context it reuses.
class ChunkLoader {
 public:
  explicit ChunkLoader(const ChunkLoadContext& ctx) : ctx_(ctx) {}

  // Whether the chunks loaded from now on decode their events' arguments.
  void set_arguments(bool decode) { ctx_.arguments = decode; }
  void set_skip_events_before(uint64_t ns) { ctx_.skip_events_before_ns = ns; }
  const ChunkLoadContext& context() const { return ctx_; }

  // Loads e. may_decompress(content) is asked before decompressing; when it
  // returns false, the result stops there (decoder unset, no decode_error).
  PreparedChunk load(const IndexEntry& e,
                     const std::function<bool(uint64_t content)>& may_decompress);

  // Keeps a finished decoder's payload buffer for the next load, instead of
  // allocating (and faulting in) about a megabyte per chunk anew.
  void recycle(ChunkDecoder& done);
  // Frees the buffers kept for the next load (the reader is at its end).
  void release();

 private:
  ChunkLoadContext ctx_;
  std::string block_buf_;
  std::string spare_payload_;  // a recycled buffer, or empty
  ZstdDecompressor zstd_;
};

}  // namespace usdt::format
