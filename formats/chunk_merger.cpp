#include "formats/chunk_merger.h"

#include <algorithm>
#include <limits>

#include "formats/byte_cursor.h"

namespace usdt::format {

ChunkMerger::ChunkMerger(ReaderState& state, std::vector<IndexEntry> chunks) : st_(state) {
  chunks_.reserve(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) chunks_.push_back(Chunk{chunks[i], i});
  std::stable_sort(chunks_.begin(), chunks_.end(), [](const Chunk& a, const Chunk& b) {
    return a.entry.header.min_time_ns < b.entry.header.min_time_ns;
  });
}

void ChunkMerger::bad_chunk(uint64_t offset, const std::string& why) {
  ++st_.diag.chunks_bad;
  st_.problem(offset, "chunk at " + st_.where(offset) + " is damaged (" + why + "): skipped");
}

std::unique_ptr<ChunkDecoder> ChunkMerger::load(const IndexEntry& e) {
  Status s = st_.src->read(e.offset, e.block_size, st_.block_buf);
  if (!s) {
    bad_chunk(e.offset, s.error().message());
    return nullptr;
  }
  ByteCursor in(st_.block_buf);
  BlockHeader h = decode_block_header(in);
  if (std::string bad = check_block_header(h); !bad.empty()) {
    bad_chunk(e.offset, bad);
    return nullptr;
  }
  if (h.kind != static_cast<uint16_t>(BlockKind::chunk) || h.total_size() != e.block_size) {
    bad_chunk(e.offset, "the block does not match the index");
    return nullptr;
  }
  ChunkHeader header = decode_chunk_header(in);
  if (!(header == e.header)) {
    bad_chunk(e.offset, "its header does not match the index");
    return nullptr;
  }
  in.skip(h.header_size - kChunkHeaderSize);
  std::string_view frame = in.bytes(h.body_size);
  if (!in.ok()) {
    bad_chunk(e.offset, "short block");
    return nullptr;
  }
  uint64_t content = zstd_content_size(frame);
  if (content <= st_.options.max_chunk_payload &&
      content > st_.options.max_active_payload -
                    std::min(active_payload_, st_.options.max_active_payload)) {
    bad_chunk(e.offset, "it overlaps in time with chunks_ holding " +
                            std::to_string(active_payload_) + " bytes already, and " +
                            std::to_string(content) + " more would exceed the reader's limit of " +
                            std::to_string(st_.options.max_active_payload));
    return nullptr;
  }
  s = st_.zstd.decompress(frame, st_.options.max_chunk_payload, payload_buf_);
  if (!s) {
    bad_chunk(e.offset, s.error().message());
    return nullptr;
  }
  auto d = std::make_unique<ChunkDecoder>(std::move(payload_buf_), &st_.site_arg_counts,
                                          &st_.site_string_masks, &st_.site_frames);
  payload_buf_ = std::string();
  if (!d->start(e.header)) {
    bad_chunk(e.offset, d->error());
    return nullptr;
  }
  ++st_.diag.chunks_read;
  return d;
}

bool ChunkMerger::before(const Active& a, const Active& b) {
  if (a.d->next_time() != b.d->next_time()) return a.d->next_time() < b.d->next_time();
  if (a.d->next_rank() != b.d->next_rank()) return a.d->next_rank() < b.d->next_rank();
  return a.seq < b.seq;
}
bool ChunkMerger::heap_after(const Active& a, const Active& b) { return before(b, a); }

void ChunkMerger::push(Active a) {
  if (!cur_.d) {
    cur_ = std::move(a);
    return;
  }
  if (before(a, cur_)) std::swap(a, cur_);
  heap_.push_back(std::move(a));
  std::push_heap(heap_.begin(), heap_.end(), heap_after);
}

ChunkMerger::Active ChunkMerger::pop_heap_min() {
  std::pop_heap(heap_.begin(), heap_.end(), heap_after);
  Active a = std::move(heap_.back());
  heap_.pop_back();
  return a;
}

void ChunkMerger::load_due() {
  while (pending_ < chunks_.size()) {
    const Chunk& c = chunks_[pending_];
    if (cur_.d && c.entry.header.min_time_ns > cur_.d->next_time()) break;
    ++pending_;
    if (!filter_.chunk_may_match(c.entry.header)) continue;
    auto d = load(c.entry);
    if (!d) continue;
    st_.diag.records_skipped += d->records_skipped();
    if (!d->has_next()) continue;
    active_payload_ += d->payload_size();
    push(Active{std::move(d), c.seq, c.entry.offset, 0});
  }
  pending_min_ = pending_ < chunks_.size() ? chunks_[pending_].entry.header.min_time_ns
                                           : std::numeric_limits<uint64_t>::max();
}

void ChunkMerger::retire_current() {
  if (cur_.d->failed()) {
    ++st_.diag.chunks_bad;
    st_.problem(cur_.offset, "chunk at " + st_.where(cur_.offset) + " is damaged after " +
                                 std::to_string(cur_.emitted) + " records (" + cur_.d->error() +
                                 "): the rest of it is skipped");
  }
  active_payload_ -= cur_.d->payload_size();
  retired_ = std::move(cur_.d);
  cur_ = Active{};
  if (!heap_.empty()) cur_ = pop_heap_min();
}

bool ChunkMerger::next() {
  if (retired_) retired_.reset();
  if (done_) return false;
  for (;;) {
    if (!cur_.d || pending_min_ <= cur_.d->next_time()) load_due();
    if (!cur_.d) {
      done_ = true;
      out_ = nullptr;
      return false;
    }
    ChunkDecoder* d = cur_.d.get();
    d->advance();
    ++cur_.emitted;
    out_ = d;
    if (!d->has_next()) {
      retire_current();
    } else if (!heap_.empty() && before(heap_.front(), cur_)) {
      Active next = pop_heap_min();
      heap_.push_back(std::move(cur_));
      std::push_heap(heap_.begin(), heap_.end(), heap_after);
      cur_ = std::move(next);
    }
    if (!filter_.active() || filter_.matches(*out_)) return true;
  }
}

}  // namespace usdt::format
