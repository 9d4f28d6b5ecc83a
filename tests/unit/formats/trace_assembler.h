// Builds trace files block by block, for the tests and the fuzzer that need
// files no writer makes: bodies of any content, counts that lie, an index
// that points anywhere. Every body is one zstd frame with its content size and
// checksum, as formats/FORMAT.md requires, so that a reader gets past both and
// meets what the test put inside. Header-only: the fuzzer (tests/fuzz/run.sh)
// builds without CMake.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/table_codec.h"
#include "formats/zstd_codec.h"

namespace usdt::format::test {

class TraceAssembler {
 public:
  // The file header, the metadata and the probe table.
  TraceAssembler(const TraceMetadata& metadata, const std::vector<ProbeSite>& sites)
      : zstd_(std::move(*ZstdCompressor::create(1))) {
    encode_file_header(bytes_);
    std::string plain;
    encode_metadata(plain, metadata);
    block(BlockKind::metadata, plain);
    plain.clear();
    encode_probe_table(plain, sites);
    block(BlockKind::probe_table, plain);
    data_start_ = bytes_.size();
  }

  // Compresses plain as a block body.
  std::string frame(std::string_view plain) {
    std::string out;
    (void)zstd_.compress(plain, out);
    return out;
  }
  // Appends a block of kind whose body is already a frame (or any bytes),
  // after kind_header; returns its offset.
  uint64_t raw_block(uint16_t kind, std::string_view frame, std::string_view kind_header = {}) {
    const uint64_t at = bytes_.size();
    BlockHeader h;
    h.kind = kind;
    h.header_size = static_cast<uint16_t>(kind_header.size());
    h.body_size = frame.size();
    encode_block_header(bytes_, h);
    bytes_.append(kind_header);
    bytes_.append(frame);
    return at;
  }
  // Appends a block whose body is the frame of plain; returns its offset.
  uint64_t block(BlockKind kind, std::string_view plain, std::string_view kind_header = {}) {
    return raw_block(static_cast<uint16_t>(kind), frame(plain), kind_header);
  }

  // A chunk of payload (a header copy first, as ChunkBuilder writes it) whose
  // uncompressed header is header; listed in the index.
  uint64_t chunk(std::string_view payload, const ChunkHeader& header) {
    std::string head;
    encode_chunk_header(head, header);
    const uint64_t at = block(BlockKind::chunk, payload, head);
    index_.chunks.push_back(IndexEntry{at, bytes_.size() - at, header});
    return at;
  }
  uint64_t chunk(ChunkBuilder& builder) {
    std::string payload;
    const ChunkHeader h = builder.encode(payload);
    return chunk(payload, h);
  }
  // An object block of the plain body given (encode_object's, or crafted),
  // listed in the index.
  uint64_t object(std::string_view plain) {
    const uint64_t at = block(BlockKind::object, plain);
    index_.objects.push_back(at);
    return at;
  }
  uint64_t summary(const TraceSummary& summary, size_t sites) {
    std::string plain;
    encode_summary(plain, summary, sites);
    index_.summary_offset = block(BlockKind::summary, plain);
    return index_.summary_offset;
  }

  // What the index will list (the blocks added so far), to change at will.
  ChunkIndex& index() { return index_; }
  uint64_t data_start() const { return data_start_; }

  // Appends the index and the trailer.
  void finish() {
    std::string plain;
    encode_index(plain, index_);
    const uint64_t at = block(BlockKind::index, plain);
    Trailer t{at, bytes_.size() - at};
    encode_trailer(bytes_, t);
  }

  std::string& bytes() { return bytes_; }

 private:
  ZstdCompressor zstd_;
  std::string bytes_;
  ChunkIndex index_;
  uint64_t data_start_ = 0;
};

}  // namespace usdt::format::test
