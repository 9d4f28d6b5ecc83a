// The inside of TraceWriter (formats/trace_writer.h), shared by its two
// files: trace_writer.cpp (creation, records, chunks) and
// trace_writer_blocks.cpp (object and added sites blocks, copied chunks,
// the end of the file).
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/site_tally.h"
#include "formats/table_codec.h"
#include "formats/trace_writer.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

// Limits that keep every chunk well inside what readers accept
// (kMaxChunkPayload): the estimate undercounts a worst-case event by at most
// about 30 bytes, so 8 MiB of estimate and 1 Mi records stay below 64 MiB.
constexpr size_t kMaxChunkBytes = 8u << 20;
constexpr uint64_t kMaxWriterChunkRecords = 1u << 20;

inline std::string to_hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", v);
  return buf;
}

// Why sites, whose ids must start at first_id, cannot be written after
// sites_before others; empty when they can.
inline std::string bad_sites(const std::vector<ProbeSite>& sites, uint32_t first_id,
                             size_t sites_before) {
  if (sites.size() > kMaxSites - sites_before) {
    return std::to_string(sites_before + sites.size()) +
           " probe sites exceed the format's limit of " + std::to_string(kMaxSites);
  }
  for (size_t i = 0; i < sites.size(); ++i) {
    const uint64_t expected = uint64_t{first_id} + i;
    if (sites[i].id != expected) {
      return "probe site " + std::to_string(expected) + " has id " + std::to_string(sites[i].id) +
             " (ids must be " + std::to_string(first_id) + ".." +
             std::to_string(first_id + sites.size() - 1) + " in order)";
    }
    if (sites[i].args.size() > static_cast<size_t>(kMaxArgs)) {
      return "probe site " + std::to_string(expected) + " has " +
             std::to_string(sites[i].args.size()) + " arguments (at most " +
             std::to_string(kMaxArgs) + ")";
    }
  }
  return {};
}

// Bit i: argument i of the site is a string.
inline uint16_t string_mask_of(const ProbeSite& site) {
  uint16_t strings = 0;
  for (size_t a = 0; a < site.args.size(); ++a) {
    if (site.args[a].is_string) strings = static_cast<uint16_t>(strings | (1u << a));
  }
  return strings;
}

struct TraceWriter::Impl {
  std::string path;
  std::unique_ptr<BlockOutput> out;
  WriterOptions options;
  ZstdCompressor zstd;
  ChunkBuilder builder;
  ChunkIndex index;
  std::vector<uint8_t> site_arg_counts;     // by site id, added sites too
  std::vector<uint16_t> site_string_masks;  // bit i: argument i is a string
  size_t table_sites = 0;                   // sites of the probe table (not added ones)
  std::string payload, frame, block;
  uint64_t offset = 0;
  uint64_t events_written = 0;
  SiteTally tally;
  bool full = false;  // max_bytes reached: appends are refused from then on
  uint64_t events_refused = 0;
  std::optional<Error> failed;  // sticky: the first write error
  bool finished = false;
  uint64_t complete_before_noted = 0;    // note_complete_before()
  uint64_t complete_before_written = 0;  // in the last progress block

  // Whether the event's string arguments (below its arg_count) are those its
  // site's descriptors say; the caller checked site_id and arg_count.
  bool strings_agree(const Event& event) const {
    uint32_t below_count = (1u << event.arg_count) - 1;
    return ((event.string_mask ^ site_string_masks[event.site_id]) & below_count) == 0;
  }
  std::chrono::steady_clock::time_point chunk_started;  // first append of the pending chunk

  explicit Impl(ZstdCompressor z) : zstd(std::move(z)) {}

  Status fail(Error error) {
    if (!failed) failed = std::move(error);
    return *failed;
  }

  // Makes `block` one block: frame, the kind's fixed header, body compressed.
  Status encode(BlockKind kind, std::string_view kind_header, std::string_view body) {
    Status s = zstd.compress(body, frame);
    if (!s) return fail(s.error().context("cannot write '" + path + "'"));
    BlockHeader h;
    h.kind = static_cast<uint16_t>(kind);
    h.header_size = static_cast<uint16_t>(kind_header.size());
    h.body_size = frame.size();
    block.clear();
    encode_block_header(block, h);
    block.append(kind_header);
    block.append(frame);
    return Status::success();
  }

  // Hands bytes of the file to the output: a chunk block with its header
  // and counts, anything else without.
  Status put(std::string_view bytes, const ChunkHeader* chunk = nullptr,
             const SiteCounts* counts = nullptr) {
    Status s = chunk != nullptr ? out->write_chunk(bytes, *chunk, *counts) : out->write(bytes);
    if (!s) {
      return fail(
          s.error().context("cannot write '" + path + "' at offset " + std::to_string(offset)));
    }
    offset += bytes.size();
    return Status::success();
  }

  Status write_block(BlockKind kind, std::string_view kind_header, std::string_view body) {
    if (failed) return *failed;
    if (Status s = encode(kind, kind_header, body); !s) return s;
    return put(block);
  }

  // With max_bytes: whether a block of this size still leaves room for the
  // end of the file, at its largest (footer_bound).
  bool room_for(uint64_t bytes, size_t more_chunks) const {
    if (options.max_bytes == 0) return true;
    return offset + bytes + footer_bound(more_chunks) <= options.max_bytes;
  }
  // The most bytes the summary, index and trailer can take: their bodies at
  // their largest (every varint 10 bytes; room for the drops by cause),
  // compressed at zstd's worst.
  uint64_t footer_bound(size_t more_chunks) const {
    const size_t sites = tally.sites();
    const size_t summary = 10 * (8 + 2 * sites) + 4096;
    const size_t entries = index.chunks.size() + more_chunks;
    const size_t index_body =
        16 + kIndexEntrySize * entries + 16 + 8 * (index.objects.size() + index.added_sites.size());
    return 2 * kBlockHeaderSize + zstd_compress_bound(summary) + zstd_compress_bound(index_body) +
           kTrailerSize;
  }

  Status flush() {
    if (failed) return *failed;
    if (builder.empty()) return Status::success();
    ChunkHeader header = builder.encode(payload);
    std::string kind_header;
    encode_chunk_header(kind_header, header);
    if (Status s = encode(BlockKind::chunk, kind_header, payload); !s) return s;
    if (full || !room_for(block.size(), 1)) {
      full = true;
      events_refused += header.events;
      tally.settle(false);
      return Status::success();
    }
    const SiteCounts counts = tally.pending();
    const uint64_t at = offset;
    if (Status s = put(block, &header, &counts); !s) return s;
    index.chunks.push_back(IndexEntry{at, offset - at, header});
    events_written += header.events;
    tally.settle(true);
    return Status::success();
  }

  Status after_append() {
    if (builder.estimated_size() >= options.chunk_bytes ||
        builder.records() >= kMaxWriterChunkRecords) {
      return flush();
    }
    if (options.flush_interval_ms == 0) return Status::success();
    // Reading the clock costs more than an append: look every 256 records.
    if (builder.records() == 1) {
      chunk_started = std::chrono::steady_clock::now();
    } else if ((builder.records() & 255) == 0 &&
               std::chrono::steady_clock::now() - chunk_started >=
                   std::chrono::milliseconds(options.flush_interval_ms)) {
      return flush();
    }
    return Status::success();
  }

  Status usable() const {
    if (failed) return *failed;
    if (finished) return Error("cannot write to '" + path + "': the trace is already finished");
    return Status::success();
  }
};

}  // namespace usdt::format
