#include "formats/chunk_locator.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/byte_cursor.h"
#include "formats/table_codec.h"

namespace usdt::format {

bool ChunkLocator::add_chunk(const IndexEntry& e) {
  if (st_.budget.take(kLocatedChunkBytes)) {
    chunks_.push_back(e);
    return true;
  }
  st_.budget_problem(e.offset, "'" + st_.path + "' has more chunks than the reader's memory " +
                                   "budget of " + byte_size_text(st_.budget.limit()) +
                                   " can list: the " + std::to_string(chunks_.size()) +
                                   " before offset " + std::to_string(e.offset) +
                                   " are read, the others left out");
  return false;
}

// Whether the index's chunk entries lie in the data region, in file order
// and without overlapping: each byte of the file is read as part of one
// chunk at most, so that no event is read twice. Written so that no sum or
// difference wraps around 2^64 whatever the offsets and sizes.
bool ChunkLocator::chunks_in_data(const std::vector<IndexEntry>& chunks, uint64_t data_start,
                                  uint64_t data_end) {
  uint64_t at = data_start;  // where the next chunk may start
  for (const IndexEntry& e : chunks) {
    if (e.offset < at || e.offset > data_end || e.block_size > data_end - e.offset ||
        e.block_size < kBlockHeaderSize + kChunkHeaderSize) {
      return false;
    }
    at = e.offset + e.block_size;  // <= data_end: no wrap
  }
  return true;
}

bool ChunkLocator::read_footer(uint64_t data_start) {
  data_start_ = data_start;
  uint64_t size = st_.src->size();
  if (size < kTrailerSize || size - kTrailerSize < data_start) return false;
  std::string buf;
  if (!st_.src->read(size - kTrailerSize, kTrailerSize, buf)) return false;
  ByteCursor in(buf);
  Trailer t = decode_trailer(in);
  if (!in.ok()) return false;  // no trailer: the recording did not finish
  uint64_t trailer_at = size - kTrailerSize;
  if (t.index_offset < data_start || t.index_offset > trailer_at ||
      t.index_size != trailer_at - t.index_offset) {
    st_.problem(trailer_at, "the trailer at offset " + std::to_string(trailer_at) +
                                " points outside the file; reading chunks without the index");
    return false;
  }
  std::string body;
  const uint64_t refusals = st_.budget.refusals();
  auto n = st_.read_table_block(t.index_offset, BlockKind::index, "index", body);
  Result<ChunkIndex> index = n ? decode_index(body, &st_.budget) : Result<ChunkIndex>(n.error());
  if (!index) {
    if (st_.budget.refusals() != refusals) {
      st_.budget_problem(t.index_offset, "the index of " + st_.where(t.index_offset) +
                                             " is left out, chunks are found by a scan: " +
                                             index.error().message());
    } else {
      st_.problem(t.index_offset, index.error().message() + "; reading chunks without the index");
    }
    return false;
  }
  if (!chunks_in_data(index->chunks, data_start, t.index_offset)) {
    st_.problem(t.index_offset, "the index at offset " + std::to_string(t.index_offset) +
                                    " lists a chunk outside the data, out of order or overlapping "
                                    "another; reading chunks without it");
    st_.budget.give_back(index->budget_bytes);
    return false;
  }
  read_indexed_tables(*index, data_start, t.index_offset);
  for (const auto& e : index->chunks) {
    if (!add_chunk(e)) break;
  }
  st_.budget.give_back(index->budget_bytes);
  return true;
}

void ChunkLocator::read_indexed_tables(const ChunkIndex& index, uint64_t data_start,
                                       uint64_t data_end) {
  // Each block is read once: a list must go forward through the file. One
  // the index misplaces is reported and left out: for 1.4's added probe
  // sites, chunks with its sites' events are then damaged, the others read.
  uint64_t next = data_start;
  for (uint64_t offset : index.added_sites) {
    if (!listed_block_in_data(offset, next, data_end, "an added probe sites block")) continue;
    // Before the summary, which counts them too.
    next = offset + std::max<uint64_t>(read_added_sites(offset), 1);
  }
  if (index.summary_offset != 0) {
    if (index.summary_offset >= data_start && index.summary_offset < data_end) {
      read_summary(index.summary_offset);
    } else {
      st_.problem(index.summary_offset, "the index points to a summary outside the data");
    }
  }
  // 1.3: the object blocks; the chunks stay readable without them.
  next = data_start;
  for (uint64_t offset : index.objects) {
    if (!listed_block_in_data(offset, next, data_end, "an object block")) continue;
    next = offset + std::max<uint64_t>(read_object(offset), 1);
  }
}

bool ChunkLocator::listed_block_in_data(uint64_t offset, uint64_t from, uint64_t data_end,
                                        const char* what) {
  if (offset >= from && offset < data_end) return true;
  const bool inside = offset < from && offset >= data_start_;
  st_.problem(data_end, "the index at offset " + std::to_string(data_end) + " lists " + what +
                            " at offset " + std::to_string(offset) +
                            (inside ? ", not after the one listed before it: left out"
                                    : ", outside the data: left out"));
  return false;
}

uint64_t ChunkLocator::read_added_sites(uint64_t offset) {
  std::string body;
  const uint64_t refusals = st_.budget.refusals();
  auto n = st_.read_table_block(offset, BlockKind::added_sites, "added probe sites", body);
  if (!n) {
    table_problem(offset, refusals, n.error().message() + ": its probe sites are left out");
    return 0;
  }
  const size_t known = st_.sites.size();
  auto sites =
      decode_added_sites(body, static_cast<uint32_t>(known), kMaxSites - known, &st_.budget);
  if (!sites && st_.budget.refusals() != refusals) {
    st_.budget_problem(offset, "the probe sites of the added probe sites block of " +
                                   st_.where(offset) + " are left out: " + sites.error().message());
    return *n;
  }
  if (!sites) {
    st_.problem(offset, "the added probe sites block of " + st_.where(offset) +
                            " is damaged or does not continue the " + std::to_string(known) +
                            " sites before it (" + sites.error().message() +
                            "): its probe sites are left out");
    return *n;
  }
  st_.add_sites(std::move(*sites));
  return *n;
}

void ChunkLocator::read_summary(uint64_t offset) {
  std::string body;
  const uint64_t refusals = st_.budget.refusals();
  auto n = st_.read_table_block(offset, BlockKind::summary, "summary", body);
  auto s =
      n ? decode_summary(body, st_.sites.size(), &st_.budget) : Result<TraceSummary>(n.error());
  if (s) {
    st_.summary = std::move(*s);
  } else if (n && st_.budget.refusals() != refusals) {
    st_.budget_problem(
        offset, "the summary of " + st_.where(offset) + " is left out: " + s.error().message());
  } else {
    table_problem(offset, refusals, s.error().message());
  }
}

uint64_t ChunkLocator::read_object(uint64_t offset) {
  std::string body;
  const uint64_t refusals = st_.budget.refusals();
  auto n = st_.read_table_block(offset, BlockKind::object, "object", body);
  if (!n) {
    table_problem(offset, refusals, n.error().message() + ": its symbols are left out");
    return 0;
  }
  auto o = decode_object(body, &st_.budget);
  if (!o && st_.budget.refusals() != refusals) {
    st_.budget_problem(offset, "the symbols of the object block of " + st_.where(offset) +
                                   " are left out: " + o.error().message());
    return *n;
  }
  if (!o) {
    st_.problem(offset, "the object block of " + st_.where(offset) + " is damaged (" +
                            o.error().message() + "): its symbols are left out");
    return *n;
  }
  st_.objects->push_back(std::move(*o));
  return *n;
}

void ChunkLocator::table_problem(uint64_t offset, uint64_t refusals_before, std::string message) {
  if (st_.budget.refusals() != refusals_before) {
    st_.budget_problem(offset, std::move(message));
  } else {
    st_.problem(offset, std::move(message));
  }
}

}  // namespace usdt::format
