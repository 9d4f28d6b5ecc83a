#include "formats/chunk_loader.h"

#include "formats/byte_cursor.h"

namespace usdt::format {

void ChunkLoader::recycle(ChunkDecoder& done) {
  std::string buf = done.take_payload_buffer();
  if (buf.capacity() > spare_payload_.capacity() && buf.capacity() <= ctx_.kept_buffers / 2) {
    spare_payload_ = std::move(buf);
  }
}

void ChunkLoader::release() {
  std::string().swap(block_buf_);
  std::string().swap(spare_payload_);
}

PreparedChunk ChunkLoader::load(const IndexEntry& e, uint64_t max_held) {
  PreparedChunk out;
  out.need = e.block_size;
  if (e.block_size > max_held) {
    out.over_budget = true;
    return out;
  }
  read_block(e, max_held, out);
  if (block_buf_.capacity() > ctx_.kept_buffers / 2) std::string().swap(block_buf_);
  return out;
}

void ChunkLoader::read_block(const IndexEntry& e, uint64_t max_held, PreparedChunk& out) {
  Status s = ctx_.src->read(e.offset, e.block_size, block_buf_);
  if (!s) {
    out.frame_error = s.error().message();
    return;
  }
  ByteCursor in(block_buf_);
  BlockHeader h = decode_block_header(in);
  if (std::string bad = check_block_header(h); !bad.empty()) {
    out.frame_error = bad;
    return;
  }
  if (h.kind != static_cast<uint16_t>(BlockKind::chunk) || h.total_size() != e.block_size) {
    out.frame_error = "the block does not match the index";
    return;
  }
  ChunkHeader header = decode_chunk_header(in);
  if (!(header == e.header)) {
    out.frame_error = "its header does not match the index";
    return;
  }
  in.skip(h.header_size - kChunkHeaderSize);
  std::string_view frame = in.bytes(h.body_size);
  if (!in.ok()) {
    out.frame_error = "short block";
    return;
  }
  out.content = zstd_content_size(frame);
  // A content over the limit (or none) fails the decompression: damage.
  if (out.content <= ctx_.max_chunk_payload) {
    out.need = e.block_size + out.content;
    if (out.need > max_held) {
      out.over_budget = true;
      return;
    }
  }
  decode(e, frame, max_held, out);
}

void ChunkLoader::decode(const IndexEntry& e, std::string_view frame, uint64_t max_held,
                         PreparedChunk& out) {
  std::string payload = std::move(spare_payload_);
  spare_payload_ = std::string();
  Status s = zstd_.decompress(frame, ctx_.max_chunk_payload, payload);
  if (!s) {
    out.decode_error = s.error().message();
    return;
  }
  auto d = std::make_unique<ChunkDecoder>(std::move(payload), ctx_.site_arg_counts,
                                          ctx_.site_string_masks, ctx_.site_frames);
  if (!ctx_.arguments) d->skip_arguments();
  d->skip_events_before(ctx_.skip_events_before_ns);
  const bool started = d->start(e.header, max_held, e.block_size);
  out.need = d->peak_held();
  if (d->over_budget()) {
    out.over_budget = true;
    return;
  }
  if (!started) {
    out.decode_error = d->error();
    return;
  }
  out.decoder = std::move(d);
}

}  // namespace usdt::format
