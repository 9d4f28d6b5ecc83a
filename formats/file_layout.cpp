#include "formats/file_layout.h"

namespace usdt::format {

void encode_file_header(std::string& out) {
  ByteWriter w(out);
  w.bytes(kFileMagic, sizeof kFileMagic);
  w.u16(kVersionMajor);
  w.u16(kVersionMinor);
  w.u32(kFileHeaderSize);
  w.u32(0);  // flags
  w.u32(0);  // reserved
}

void encode_block_header(std::string& out, const BlockHeader& header) {
  ByteWriter w(out);
  w.u32(header.sync);
  w.u16(header.kind);
  w.u16(header.header_size);
  w.u64(header.body_size);
}

void encode_chunk_header(std::string& out, const ChunkHeader& h) {
  ByteWriter w(out);
  w.u64(h.min_time_ns);
  w.u64(h.max_time_ns);
  w.u32(h.events);
  w.u32(h.process_events);
  w.u32(h.lost_records);
  w.u32(h.reserved);
  w.u64(h.site_bloom);
  w.u64(h.pid_bloom);
  w.u64(h.tid_bloom);
}

void encode_trailer(std::string& out, const Trailer& t) {
  ByteWriter w(out);
  w.u64(t.index_offset);
  w.u64(t.index_size);
  w.bytes(kTrailerMagic, sizeof kTrailerMagic);
}

BlockHeader decode_block_header(ByteCursor& in) {
  BlockHeader h;
  h.sync = in.u32();
  h.kind = in.u16();
  h.header_size = in.u16();
  h.body_size = in.u64();
  return h;
}

ChunkHeader decode_chunk_header(ByteCursor& in) {
  ChunkHeader h;
  h.min_time_ns = in.u64();
  h.max_time_ns = in.u64();
  h.events = in.u32();
  h.process_events = in.u32();
  h.lost_records = in.u32();
  h.reserved = in.u32();
  h.site_bloom = in.u64();
  h.pid_bloom = in.u64();
  h.tid_bloom = in.u64();
  return h;
}

IndexEntry decode_index_entry(ByteCursor& in) {
  IndexEntry e;
  e.offset = in.u64();
  e.block_size = in.u64();
  e.header = decode_chunk_header(in);
  return e;
}

Trailer decode_trailer(ByteCursor& in) {
  Trailer t;
  t.index_offset = in.u64();
  t.index_size = in.u64();
  std::string_view magic = in.bytes(sizeof kTrailerMagic);
  if (magic != std::string_view(kTrailerMagic, sizeof kTrailerMagic)) in.fail();
  return t;
}

std::string check_block_header(const BlockHeader& h) {
  if (h.sync != kBlockSync) return "no block marker";
  if (h.body_size > kMaxBlockBody) {
    return "block body of " + std::to_string(h.body_size) + " bytes exceeds the limit of " +
           std::to_string(kMaxBlockBody);
  }
  if (h.kind == static_cast<uint16_t>(BlockKind::chunk)) {
    if (h.header_size < kChunkHeaderSize) {
      return "chunk header of " + std::to_string(h.header_size) + " bytes is shorter than " +
             std::to_string(kChunkHeaderSize);
    }
  }
  return {};
}

}  // namespace usdt::format
