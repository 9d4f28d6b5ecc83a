// The fixed parts of the trace file layout (formats/FORMAT.md): the file
// header, the block frame, the chunk header, the index entries and the
// trailer, with their encoders and bounds-checked decoders, and the limits a
// reader enforces on sizes it reads from a (possibly hostile) file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/byte_cursor.h"

namespace usdt::format {

constexpr char kFileMagic[8] = {'U', 'S', 'D', 'T', 'T', 'R', 'C', '\n'};
constexpr char kTrailerMagic[8] = {'U', 'S', 'D', 'T', 'E', 'N', 'D', '\n'};
constexpr uint16_t kVersionMajor = 1;
// 1.1: string arguments, drops by cause; 1.2: argument names, function probe
// names; 1.3: call stacks, mmap process events, object blocks; 1.4: probe
// sites added during the recording; 1.5: the start of the recording's span;
// 1.6: pointer arguments, the recording's CPUs; 1.7: parts of a series and
// snapshots (metadata); 1.8: progress blocks, pid namespace process events,
// the armed time.
constexpr uint16_t kVersionMinor = 8;

constexpr uint32_t kFileHeaderSize = 24;
constexpr uint32_t kMaxFileHeaderSize = 4096;
constexpr uint32_t kBlockSync = 0x4b4c4255;  // "UBLK" in little-endian bytes
constexpr uint32_t kBlockHeaderSize = 16;
constexpr uint32_t kChunkHeaderSize = 56;
constexpr uint32_t kIndexEntrySize = 16 + kChunkHeaderSize;
constexpr uint32_t kTrailerSize = 24;

// Limits a reader enforces; the writer stays well inside them.
constexpr uint64_t kMaxBlockBody = 256ull << 20;    // compressed bytes of any block
constexpr uint64_t kMaxChunkPayload = 64ull << 20;  // decompressed bytes of a chunk
constexpr uint64_t kMaxTablePayload = 64ull << 20;  // metadata, probe table, summary, index
constexpr uint64_t kMaxString = 1ull << 20;         // any one string
constexpr uint32_t kMaxSites = 1u << 20;
constexpr uint32_t kMaxChunkRecords = 1u << 24;   // records of one chunk
constexpr uint64_t kMaxObjectSymbols = 1u << 24;  // symbols of one object block
constexpr uint64_t kMaxSymbolName = 4096;         // bytes of a symbol's name
constexpr uint64_t kMaxBuildId = 128;             // hex characters of a build-id
constexpr uint64_t kMaxMappedPath = 4096;         // bytes of an mmap event's path

enum class BlockKind : uint16_t {
  metadata = 1,
  probe_table = 2,
  chunk = 3,
  summary = 4,
  index = 5,
  object = 6,       // 1.3: the symbols of a file in recorded stacks
  added_sites = 7,  // 1.4: probe sites attached during the recording
  progress = 8,     // 1.8: up to which time a file being written is complete
};

// The frame around every block: sync, kind, size of the kind's fixed header,
// size of the body (a zstd frame).
struct BlockHeader {
  uint32_t sync = kBlockSync;
  uint16_t kind = 0;
  uint16_t header_size = 0;
  uint64_t body_size = 0;

  uint64_t total_size() const { return kBlockHeaderSize + header_size + body_size; }
};

// Uncompressed facts about a chunk, for the index and for scans without it.
// The same bytes open the chunk's compressed payload, so a reader can tell a
// damaged header from a good one.
struct ChunkHeader {
  uint64_t min_time_ns = 0;  // smallest time of any record (lost: time_begin_ns too)
  uint64_t max_time_ns = 0;  // largest time of any record (lost: time_end_ns too)
  uint32_t events = 0;
  uint32_t process_events = 0;
  uint32_t lost_records = 0;
  uint32_t reserved = 0;
  uint64_t site_bloom = 0;  // bit (site_id % 64) set for every event's site
  uint64_t pid_bloom = 0;   // bit bloom_bit(pid) for every event and process event
  uint64_t tid_bloom = 0;   // bit bloom_bit(tid) likewise

  uint64_t records() const { return uint64_t{events} + process_events + lost_records; }
  bool operator==(const ChunkHeader&) const = default;
};

// One chunk in the index footer.
struct IndexEntry {
  uint64_t offset = 0;      // of the chunk's block header in the file
  uint64_t block_size = 0;  // the whole block, frame included
  ChunkHeader header;
};

struct Trailer {
  uint64_t index_offset = 0;
  uint64_t index_size = 0;  // the whole index block, frame included
};

// Bit for pid or tid in ChunkHeader blooms: a multiplicative hash, so that
// consecutive ids spread.
inline uint64_t bloom_bit(uint32_t id) { return uint64_t{1} << ((id * 0x9E3779B1u) >> 26); }
inline uint64_t site_bit(uint32_t site_id) { return uint64_t{1} << (site_id % 64); }

void encode_file_header(std::string& out);
void encode_block_header(std::string& out, const BlockHeader& header);
void encode_chunk_header(std::string& out, const ChunkHeader& header);
void encode_trailer(std::string& out, const Trailer& trailer);

// Decoders read exactly the fixed size; the caller checks cursor.ok().
BlockHeader decode_block_header(ByteCursor& in);
ChunkHeader decode_chunk_header(ByteCursor& in);
IndexEntry decode_index_entry(ByteCursor& in);
Trailer decode_trailer(ByteCursor& in);

// Checks what a block frame says against the limits and the kind's fixed
// header size; returns an empty string when valid, else why not.
std::string check_block_header(const BlockHeader& header);

}  // namespace usdt::format
