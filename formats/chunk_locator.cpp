#include "formats/chunk_locator.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/byte_cursor.h"
#include "formats/table_codec.h"

namespace usdt::format {

bool ChunkLocator::read_footer(uint64_t data_start) {
  uint64_t size = st_.src->size();
  if (size < data_start + kTrailerSize) return false;
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
  auto n = st_.read_table_block(t.index_offset, BlockKind::index, "index", body);
  Result<ChunkIndex> index = n ? decode_index(body) : Result<ChunkIndex>(n.error());
  if (!index) {
    st_.problem(t.index_offset, index.error().message() + "; reading chunks without the index");
    return false;
  }
  uint64_t at = data_start;
  for (const auto& e : index->chunks) {
    if (e.offset < at || e.block_size > t.index_offset - e.offset ||
        e.block_size < kBlockHeaderSize + kChunkHeaderSize) {
      st_.problem(t.index_offset, "the index at offset " + std::to_string(t.index_offset) +
                                      " lists a chunk outside the data; reading chunks without it");
      return false;
    }
    at = e.offset + e.block_size;
  }
  // 1.4: the added probe sites, before the summary, which counts them too.
  // One the index misplaces is reported and left out: chunks with its
  // sites' events are then damaged, the others read.
  for (uint64_t offset : index->added_sites) {
    if (offset < data_start || offset >= t.index_offset) {
      st_.problem(t.index_offset, "the index at offset " + std::to_string(t.index_offset) +
                                      " lists an added probe sites block at offset " +
                                      std::to_string(offset) + ", outside the data: left out");
      continue;
    }
    read_added_sites(offset);
  }
  if (index->summary_offset != 0) {
    auto m = index->summary_offset >= data_start && index->summary_offset < t.index_offset
                 ? st_.read_table_block(index->summary_offset, BlockKind::summary, "summary", body)
                 : Result<uint64_t>(Error("the index points to a summary outside the data"));
    auto s = m ? decode_summary(body, st_.sites.size()) : Result<TraceSummary>(m.error());
    if (s) {
      st_.summary = std::move(*s);
    } else {
      st_.problem(index->summary_offset, s.error().message());
    }
  }
  for (const auto& e : index->chunks) chunks_.push_back(e);
  // 1.3: the object blocks. One the index misplaces is reported and left
  // out; the chunks stay readable without it.
  for (uint64_t offset : index->objects) {
    if (offset < data_start || offset >= t.index_offset) {
      st_.problem(t.index_offset, "the index at offset " + std::to_string(t.index_offset) +
                                      " lists an object block at offset " + std::to_string(offset) +
                                      ", outside the data: left out");
      continue;
    }
    read_object(offset);
  }
  return true;
}

void ChunkLocator::read_added_sites(uint64_t offset) {
  std::string body;
  auto n = st_.read_table_block(offset, BlockKind::added_sites, "added probe sites", body);
  if (!n) {
    st_.problem(offset, n.error().message() + ": its probe sites are left out");
    return;
  }
  const size_t known = st_.sites.size();
  auto sites = decode_added_sites(body, static_cast<uint32_t>(known), kMaxSites - known);
  if (!sites) {
    st_.problem(offset, "the added probe sites block of " + st_.where(offset) +
                            " is damaged or does not continue the " + std::to_string(known) +
                            " sites before it (" + sites.error().message() +
                            "): its probe sites are left out");
    return;
  }
  st_.add_sites(std::move(*sites));
}

void ChunkLocator::read_summary(uint64_t offset) {
  std::string body;
  auto n = st_.read_table_block(offset, BlockKind::summary, "summary", body);
  auto s = n ? decode_summary(body, st_.sites.size()) : Result<TraceSummary>(n.error());
  if (s) {
    st_.summary = std::move(*s);
  } else {
    st_.problem(offset, s.error().message());
  }
}

void ChunkLocator::read_object(uint64_t offset) {
  std::string body;
  auto n = st_.read_table_block(offset, BlockKind::object, "object", body);
  if (!n) {
    st_.problem(offset, n.error().message() + ": its symbols are left out");
    return;
  }
  auto o = decode_object(body);
  if (!o) {
    st_.problem(offset, "the object block of " + st_.where(offset) + " is damaged (" +
                            o.error().message() + "): its symbols are left out");
    return;
  }
  st_.objects->push_back(std::move(*o));
}

// Whether a complete, plausible block frame starts at offset.
bool ChunkLocator::plausible_block(uint64_t offset) {
  uint64_t size = st_.src->size();
  std::string buf;
  if (size - offset < kBlockHeaderSize || !st_.src->read(offset, kBlockHeaderSize, buf)) {
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

// Walks the blocks from data_start, collecting chunk headers, up to the
// end of the file or the first block that is incomplete. A block frame
// that is damaged is skipped up to the next plausible frame (the chunk it
// held is lost; the checksum still guards what the next frame holds).
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
    if (std::string bad = check_block_header(h); !bad.empty()) {
      std::optional<uint64_t> next = find_block(resync_from);
      st_.diag.skipped_at.push_back(offset);
      if (!next) {
        st_.problem(offset, "no valid block at " + st_.where(offset) + " (" + bad +
                                "): the rest of the file is not read");
        return;
      }
      st_.problem(offset, "no valid block at " + st_.where(offset) + " (" + bad +
                              "): resuming at the block at offset " + std::to_string(*next));
      offset = *next;
      resync_from = offset + 1;
      continue;
    }
    if (h.total_size() > size - offset) {
      // The file ends inside this block, or its size field is damaged: a
      // complete block further on tells the two apart.
      std::optional<uint64_t> next = find_block(resync_from);
      if (!next) {
        st_.problem(offset, "'" + st_.path + "' is truncated: it ends at offset " +
                                std::to_string(size) + ", inside the block at offset " +
                                std::to_string(offset));
        return;
      }
      st_.diag.skipped_at.push_back(offset);
      st_.problem(offset, "the block at " + st_.where(offset) +
                              " claims more bytes than the file holds: resuming at the block at "
                              "offset " +
                              std::to_string(*next));
      offset = *next;
      resync_from = offset + 1;
      continue;
    }
    switch (static_cast<BlockKind>(h.kind)) {
      case BlockKind::chunk: {
        if (!st_.src->read(offset + kBlockHeaderSize, kChunkHeaderSize, buf)) return;
        ByteCursor c(buf);
        chunks_.push_back(IndexEntry{offset, h.total_size(), decode_chunk_header(c)});
        break;
      }
      case BlockKind::summary:
        scanned_summary_ = offset;  // decoded once the scan is done (locate)
        break;
      case BlockKind::index: {
        // The index is there but it or the trailer is damaged, or the file
        // ends inside the trailer.
        uint64_t end = offset + h.total_size();
        if (size - end == kTrailerSize) {
          st_.diag.truncated = false;
          if (st_.diag.problems.empty()) {
            st_.problem(end, "the trailer of '" + st_.path + "' at offset " + std::to_string(end) +
                                 " is damaged: chunks were found by scanning");
          }
        } else {
          st_.problem(end, "'" + st_.path + "' is truncated: it ends at offset " +
                               std::to_string(size) + ", inside the trailer at offset " +
                               std::to_string(end));
        }
        return;
      }
      case BlockKind::object:
        read_object(offset);
        break;
      case BlockKind::added_sites:
        read_added_sites(offset);
        break;
      case BlockKind::progress:  // for readers of a file being written (FORMAT.md 3.9)
        break;
      case BlockKind::metadata:
      case BlockKind::probe_table:
        st_.problem(offset, "unexpected block of kind " + std::to_string(h.kind) + " at " +
                                st_.where(offset) + " (a damaged chunk?): skipped");
        break;
      default:
        ++st_.diag.records_skipped;  // a block kind of a newer writer
        break;
    }
    resync_from = offset + kBlockHeaderSize;
    offset += h.total_size();
  }
}

}  // namespace usdt::format
