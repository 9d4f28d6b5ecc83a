// ChunkLocator's scan (formats/FORMAT.md section 6, "Finding chunks"): the
// blocks walked from the end of the probe table when there is no usable
// index, resuming at the next plausible block frame after damage.
#include <algorithm>
#include <cstring>
#include <string>

#include "formats/byte_cursor.h"
#include "formats/chunk_locator.h"

namespace usdt::format {

// Whether a complete, plausible block frame starts at offset.
bool ChunkLocator::plausible_block(uint64_t offset) {
  uint64_t size = st_.src->size();
  std::string buf;
  if (offset > size || size - offset < kBlockHeaderSize ||
      !st_.src->read(offset, kBlockHeaderSize, buf)) {
    return false;
  }
  ByteCursor in(buf);
  BlockHeader h = decode_block_header(in);
  return check_block_header(h).empty() && h.kind >= 1 &&
         h.kind <= static_cast<uint16_t>(BlockKind::progress) && h.total_size() <= size - offset;
}

// The offset of the next plausible block at or after from, searching for
// the sync value in windows of the file; nullopt when there is none.
std::optional<uint64_t> ChunkLocator::find_block(uint64_t from) {
  constexpr uint64_t kWindow = 1 << 16;
  constexpr char kSync[4] = {'U', 'B', 'L', 'K'};
  uint64_t size = st_.src->size();
  std::string window;
  for (uint64_t at = from; at < size && size - at >= kBlockHeaderSize;) {
    uint64_t n = std::min(size - at, kWindow);
    if (!st_.src->read(at, n, window)) return std::nullopt;
    for (size_t i = 0; i + sizeof kSync <= window.size(); ++i) {
      if (std::memcmp(window.data() + i, kSync, sizeof kSync) == 0 && plausible_block(at + i)) {
        return at + i;
      }
    }
    if (n < kWindow) break;
    at += n - (sizeof kSync - 1);  // a sync value may straddle two windows
  }
  return std::nullopt;
}

// Walks the blocks from offset, collecting chunk headers, up to the end of
// the file or the first block that is incomplete. A block frame that is
// damaged is skipped up to the next plausible frame (the chunk it held is
// lost; the checksum still guards what the next frame holds).
void ChunkLocator::scan(uint64_t offset) {
  uint64_t size = st_.src->size();
  st_.diag.truncated = true;
  std::string buf;
  // Where to look for the next frame when the one at offset is bad: just
  // after the previous frame, since a damaged size field in the previous
  // frame may have sent us past the real next one.
  uint64_t resync_from = offset + 1;
  for (;;) {
    if (offset == size) {
      st_.problem(offset, "'" + st_.path + "' ends at offset " + std::to_string(offset) +
                              " without its footer: the recording did not finish");
      return;
    }
    if (size - offset < kBlockHeaderSize) {
      st_.problem(offset, "'" + st_.path + "' is truncated: it ends inside the block at offset " +
                              std::to_string(offset));
      return;
    }
    if (!st_.src->read(offset, kBlockHeaderSize, buf)) return;
    ByteCursor in(buf);
    BlockHeader h = decode_block_header(in);
    std::string bad = check_block_header(h);
    if (!bad.empty() || h.total_size() > size - offset) {
      if (!resync(offset, resync_from, bad)) return;
      continue;
    }
    if (!take_block(h, offset)) return;
    resync_from = offset + kBlockHeaderSize;
    offset += h.total_size();
  }
}

bool ChunkLocator::resync(uint64_t& offset, uint64_t& resync_from, const std::string& bad) {
  const uint64_t size = st_.src->size();
  std::optional<uint64_t> next = find_block(resync_from);
  if (!bad.empty()) {
    st_.problem(offset, "no valid block at " + st_.where(offset) + " (" + bad +
                            (next ? "): resuming at the block at offset " + std::to_string(*next)
                                  : std::string("): the rest of the file is not read")));
  } else if (next) {
    // The file ends inside this block, or its size field is damaged: a
    // complete block further on tells the two apart.
    st_.problem(offset, "the block at " + st_.where(offset) +
                            " claims more bytes than the file holds: resuming at the block at "
                            "offset " +
                            std::to_string(*next));
  } else {
    st_.problem(offset, "'" + st_.path + "' is truncated: it ends at offset " +
                            std::to_string(size) + ", inside the block at offset " +
                            std::to_string(offset));
  }
  if (!next) return false;
  drop_overlapped_chunk(*next);
  offset = *next;
  resync_from = offset + 1;
  return true;
}

void ChunkLocator::drop_overlapped_chunk(uint64_t next) {
  // A block found inside the chunk before it: one of the two frames is
  // damaged (most likely the chunk's size field, which sent the scan past
  // the block). The chunk is left out, so that no byte is read as part of
  // two chunks.
  if (chunks_.empty()) return;
  const IndexEntry& last = chunks_.back();
  if (next <= last.offset || next - last.offset >= last.block_size) return;
  ++st_.diag.chunks_bad;
  st_.problem(last.offset, "chunk at " + st_.where(last.offset) +
                               " is damaged (the block at offset " + std::to_string(next) +
                               " starts inside it): skipped");
  chunks_.pop_back();
  st_.budget.give_back(kLocatedChunkBytes);
}

bool ChunkLocator::take_block(const BlockHeader& h, uint64_t offset) {
  std::string buf;
  switch (static_cast<BlockKind>(h.kind)) {
    case BlockKind::chunk: {
      if (!st_.src->read(offset + kBlockHeaderSize, kChunkHeaderSize, buf)) return false;
      ByteCursor c(buf);
      return add_chunk(IndexEntry{offset, h.total_size(), decode_chunk_header(c)});
    }
    case BlockKind::summary:
      scanned_summary_ = offset;  // decoded once the scan is done (locate)
      return true;
    case BlockKind::index:
      end_at_index(offset + h.total_size());
      return false;
    case BlockKind::object:
      read_object(offset);
      return true;
    case BlockKind::added_sites:
      read_added_sites(offset);
      return true;
    case BlockKind::progress:  // for readers of a file being written (FORMAT.md 3.9)
      return true;
    case BlockKind::metadata:
    case BlockKind::probe_table:
      st_.problem(offset, "unexpected block of kind " + std::to_string(h.kind) + " at " +
                              st_.where(offset) + " (a damaged chunk?): skipped");
      return true;
  }
  ++st_.diag.records_skipped;  // a block kind of a newer writer
  return true;
}

// The index is there but it or the trailer is damaged, or the file ends
// inside the trailer.
void ChunkLocator::end_at_index(uint64_t end) {
  const uint64_t size = st_.src->size();
  if (size - end == kTrailerSize) {
    st_.diag.truncated = false;
    if (st_.diag.problems.empty()) {
      st_.problem(end, "the trailer of '" + st_.path + "' at offset " + std::to_string(end) +
                           " is damaged: chunks were found by scanning");
    }
  } else {
    st_.problem(end, "'" + st_.path + "' is truncated: it ends at offset " + std::to_string(size) +
                         ", inside the trailer at offset " + std::to_string(end));
  }
}

}  // namespace usdt::format
