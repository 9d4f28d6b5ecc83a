// Turns one located chunk into a started ChunkDecoder: reads its block,
// checks it against the index entry, decompresses and parses it
// (formats/FORMAT.md section 6, "Decoding a chunk"). Touches no shared
// state, so worker threads run it side by side (formats/chunk_prefetcher.h);
// what went wrong comes back as text for the merger to report in file order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "formats/byte_source.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

// What a chunk became, in the order the checks run: over the memory it may
// take before its block is read (over_budget), a bad block (frame_error), over
// it before the payload is decompressed or while it is parsed (over_budget),
// a bad frame or payload (decode_error). need: the most bytes it held or
// asked for (its compressed block included) up to where it stopped, a
// function of the chunk alone, so that the merger judges a chunk loaded with
// more room than it has as it would one loaded with its own
// (formats/chunk_merger.cpp).
struct PreparedChunk {
  bool over_budget = false;
  std::string frame_error;
  uint64_t content = 0;
  std::string decode_error;
  uint64_t need = 0;
  std::unique_ptr<ChunkDecoder> decoder;  // set when no error is
  // From a worker that had less room than the chunk needs: the merger loads
  // it itself (formats/chunk_prefetcher.h).
  bool deferred = false;
};

// What loading needs besides the bytes: the probe table's derived tables
// (outlive the loader) and the per-chunk payload limit.
struct ChunkLoadContext {
  ByteSource* src = nullptr;  // read concurrently: FileSource uses pread
  const std::vector<uint8_t>* site_arg_counts = nullptr;
  const std::vector<uint16_t>* site_string_masks = nullptr;
  const std::vector<uint8_t>* site_frames = nullptr;
  uint64_t max_chunk_payload = 0;
  // What a loader keeps between chunks (its compressed block buffer and a
  // payload buffer to reuse), at most: larger ones are freed after use.
  uint64_t kept_buffers = 0;
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

  // Loads e, holding at most max_held bytes for it (ChunkDecoder::start):
  // when it would need more, the result stops there with over_budget.
  PreparedChunk load(const IndexEntry& e, uint64_t max_held);

  // Keeps a finished decoder's payload buffer for the next load, instead of
  // allocating (and faulting in) about a megabyte per chunk anew.
  void recycle(ChunkDecoder& done);
  // Frees the buffers kept for the next load (the reader is at its end).
  void release();

 private:
  // The parts of load(): the block read and checked against the index,
  // then its payload decompressed and parsed.
  void read_block(const IndexEntry& e, uint64_t max_held, PreparedChunk& out);
  void decode(const IndexEntry& e, std::string_view frame, uint64_t max_held, PreparedChunk& out);

  ChunkLoadContext ctx_;
  std::string block_buf_;
  std::string spare_payload_;  // a recycled buffer, or empty
  ZstdDecompressor zstd_;
};

}  // namespace usdt::format
