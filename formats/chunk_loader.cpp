#include "formats/chunk_loader.h"

#include "formats/byte_cursor.h"

namespace usdt::format {

void ChunkLoader::recycle(ChunkDecoder& done) {
  std::string buf = done.take_payload_buffer();
  if (buf.capacity() > spare_payload_.capacity()) spare_payload_ = std::move(buf);
}

void ChunkLoader::release() {
  std::string().swap(block_buf_);
  std::string().swap(spare_payload_);
}

PreparedChunk ChunkLoader::load(const IndexEntry& e,
                                const std::function<bool(uint64_t content)>& may_decompress) {
  PreparedChunk out;
  Status s = ctx_.src->read(e.offset, e.block_size, block_buf_);
  if (!s) {
    out.frame_error = s.error().message();
    return out;
  }
  ByteCursor in(block_buf_);
  BlockHeader h = decode_block_header(in);
  if (std::string bad = check_block_header(h); !bad.empty()) {
    out.frame_error = bad;
    return out;
  }
  if (h.kind != static_cast<uint16_t>(BlockKind::chunk) || h.total_size() != e.block_size) {
    out.frame_error = "the block does not match the index";
    return out;
  }
  ChunkHeader header = decode_chunk_header(in);
  if (!(header == e.header)) {
    out.frame_error = "its header does not match the index";
    return out;
  }
  in.skip(h.header_size - kChunkHeaderSize);
  std::string_view frame = in.bytes(h.body_size);
  if (!in.ok()) {
    out.frame_error = "short block";
    return out;
  }
  out.content = zstd_content_size(frame);
  if (!may_decompress(out.content)) return out;
  std::string payload = std::move(spare_payload_);
  spare_payload_ = std::string();
  s = zstd_.decompress(frame, ctx_.max_chunk_payload, payload);
  if (!s) {
    out.decode_error = s.error().message();
    return out;
  }
  auto d = std::make_unique<ChunkDecoder>(std::move(payload), ctx_.site_arg_counts,
                                          ctx_.site_string_masks, ctx_.site_frames);
  if (!ctx_.arguments) d->skip_arguments();
  d->skip_events_before(ctx_.skip_events_before_ns);
  if (!d->start(e.header)) {
    out.decode_error = d->error();
    return out;
  }
  out.decoder = std::move(d);
  return out;
}

}  // namespace usdt::format
