#include "formats/chunk_merger.h"

#include <algorithm>
#include <limits>

#include "formats/byte_cursor.h"

namespace usdt::format {

namespace {

ChunkLoadContext context_of(ReaderState& st) {
  ChunkLoadContext c;
  c.src = st.src.get();
  c.site_arg_counts = &st.site_arg_counts;
  c.site_string_masks = &st.site_string_masks;
  c.site_frames = &st.site_frames;
  c.max_chunk_payload = st.options.max_chunk_payload;
  return c;
}

}  // namespace

ChunkMerger::ChunkMerger(ReaderState& state, std::vector<IndexEntry> chunks)
    : st_(state), loader_(context_of(state)) {
  chunks_.reserve(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) chunks_.push_back(Chunk{chunks[i], i});
  std::stable_sort(chunks_.begin(), chunks_.end(), [](const Chunk& a, const Chunk& b) {
    return a.entry.header.min_time_ns < b.entry.header.min_time_ns;
  });
}

std::vector<IndexEntry> ChunkMerger::entries() const {
  std::vector<IndexEntry> out(chunks_.size());
  for (const Chunk& c : chunks_) out[c.seq] = c.entry;
  return out;
}

std::vector<ChunkHeader> ChunkMerger::chunk_headers() const {
  std::vector<ChunkHeader> out(chunks_.size());
  for (const Chunk& c : chunks_) out[c.seq] = c.entry.header;
  return out;
}

void ChunkMerger::bad_chunk(const IndexEntry& e, const std::string& why) {
  if (!filter_.owns(e.header)) return;  // another segment's reader says it
  ++st_.diag.chunks_bad;
  st_.problem(e.offset, "chunk at " + st_.where(e.offset) + " is damaged (" + why + "): skipped");
}

bool ChunkMerger::within_cap(uint64_t content) const {
  // Too large a content is refused by the decompression itself.
  if (content > st_.options.max_chunk_payload) return true;
  return content <= st_.options.max_active_payload -
                        std::min(active_payload_, st_.options.max_active_payload);
}

std::unique_ptr<ChunkDecoder> ChunkMerger::accept(const IndexEntry& e, PreparedChunk p) {
  if (!p.frame_error.empty()) {
    bad_chunk(e, p.frame_error);
    return nullptr;
  }
  if (!within_cap(p.content)) {
    bad_chunk(e, "it overlaps in time with chunks_ holding " + std::to_string(active_payload_) +
                     " bytes already, and " + std::to_string(p.content) +
                     " more would exceed the reader's limit of " +
                     std::to_string(st_.options.max_active_payload));
    return nullptr;
  }
  if (!p.decode_error.empty() || !p.decoder) {
    bad_chunk(e, p.decode_error);
    return nullptr;
  }
  if (filter_.owns(e.header)) ++st_.diag.chunks_read;
  return std::move(p.decoder);
}

std::unique_ptr<ChunkDecoder> ChunkMerger::load(const IndexEntry& e) {
  if (prefetch_) {
    // load_due() asks for the chunks in the order start_prefetch() gave.
    PreparedChunk p = prefetch_->take(prefetch_next_++);
    return accept(e, std::move(p));
  }
  // Serially, the cap is checked before decompressing: nothing is spent on
  // a chunk that is refused anyway.
  return accept(e, loader_.load(e, [this](uint64_t content) { return within_cap(content); }));
}

void ChunkMerger::start_prefetch() {
  unsigned threads = st_.options.decode_threads;
  if (threads <= 1) return;
  std::vector<IndexEntry> jobs;
  for (const Chunk& c : chunks_) {
    if (filter_.chunk_may_match(c.entry.header)) jobs.push_back(c.entry);
  }
  if (jobs.size() < 2) return;  // nothing to overlap
  size_t window = st_.options.decode_ahead_chunks;
  if (window == 0) window = 2 * size_t{threads};
  // The serial loader's context: the filter's choices (arguments) included.
  prefetch_ = std::make_unique<ChunkPrefetcher>(loader_.context(), std::move(jobs), threads, window,
                                                st_.options.decode_ahead_bytes);
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
    const bool owned = filter_.owns(c.entry.header);
    uint64_t skipped = d->records_skipped();
    if (owned) st_.diag.records_skipped += skipped;
    if (!d->has_next()) {
      drop(std::move(d));
      continue;
    }
    active_payload_ += d->payload_size();
    const bool check = !filter_.passes_whole(c.entry.header);
    push(Active{std::move(d), c.seq, c.entry.offset, 0, skipped, owned, check});
  }
  pending_min_ = pending_ < chunks_.size() ? chunks_[pending_].entry.header.min_time_ns
                                           : std::numeric_limits<uint64_t>::max();
}

void ChunkMerger::drop(std::unique_ptr<ChunkDecoder> d) {
  if (d && !prefetch_) loader_.recycle(*d);
}

void ChunkMerger::retire_current() {
  if (cur_.d->failed() && cur_.owned) {
    ++st_.diag.chunks_bad;
    st_.problem(cur_.offset, "chunk at " + st_.where(cur_.offset) + " is damaged after " +
                                 std::to_string(cur_.emitted + cur_.d->events_passed_over()) +
                                 " records (" + cur_.d->error() + "): the rest of it is skipped");
  }
  // Records of unknown kinds met after the chunk was loaded (a drained
  // decoder met them all before).
  if (cur_.owned) st_.diag.records_skipped += cur_.d->records_skipped() - cur_.skipped;
  active_payload_ -= cur_.d->payload_size();
  retired_ = std::move(cur_.d);
  cur_ = Active{};
  if (!heap_.empty()) cur_ = pop_heap_min();
}

void ChunkMerger::keep_smallest_current() {
  if (heap_.empty() || !before(heap_.front(), cur_)) return;
  Active next = pop_heap_min();
  heap_.push_back(std::move(cur_));
  std::push_heap(heap_.begin(), heap_.end(), heap_after);
  cur_ = std::move(next);
}

uint64_t ChunkMerger::merge_limit() const {
  uint64_t limit = pending_min_;
  if (!heap_.empty()) limit = std::min(limit, heap_.front().d->next_time());
  return limit;
}

uint32_t ChunkMerger::pass_over_dropped_events() {
  const uint32_t n = cur_.d->skip_events_while(
      merge_limit(), [this](const Event& e) { return !filter_.event_passes(e); });
  cur_.emitted += n;
  return n;
}

bool ChunkMerger::next() {
  if (retired_) drop(std::move(retired_));
  if (done_) return false;
  if (!started_) {
    started_ = true;
    start_prefetch();
  }
  for (;;) {
    if (!cur_.d || pending_min_ <= cur_.d->next_time()) load_due();
    if (!cur_.d) {
      done_ = true;
      out_ = nullptr;
      loader_.release();  // a parallel report keeps its ended readers a while
      return false;
    }
    if (cur_.check && filter_.past_window(cur_.d->next_time())) {
      retire_current();  // all that is left of it lies past the window
      continue;
    }
    if (cur_.check && pass_over_dropped_events() != 0) {
      keep_smallest_current();
      continue;  // the loads and the order again, from the new next record
    }
    ChunkDecoder* d = cur_.d.get();
    const bool check = cur_.check;
    d->advance();
    ++cur_.emitted;
    out_ = d;
    if (!d->has_next()) {
      retire_current();
    } else {
      keep_smallest_current();
    }
    if (!check || filter_.matches(*out_)) return true;
  }
}

uint32_t ChunkMerger::next_events(const Event** first) {
  if (retired_) drop(std::move(retired_));
  if (done_ || !started_ || !cur_.d) return 0;
  // Past the window: next() retires the chunk.
  if (cur_.check && filter_.past_window(cur_.d->next_time())) return 0;
  if (cur_.check && pass_over_dropped_events() != 0) {
    // cur_'s next record may now come after another chunk's: next() goes
    // on from the order made again (and loads what is due).
    keep_smallest_current();
    return 0;
  }
  // Strictly earlier than the next chunk to load and than every other
  // active chunk's next record: next() would have taken each from cur_;
  // in a chunk that needs checks, as long as they pass.
  const uint64_t limit = merge_limit();
  const uint32_t n =
      cur_.check ? cur_.d->take_events_while(
                       limit, first, [this](const Event& e) { return filter_.event_passes(e); })
                 : cur_.d->take_events_before(limit, first);
  if (n == 0) return 0;
  cur_.emitted += n;
  out_ = cur_.d.get();
  keep_smallest_current();
  return n;
}

}  // namespace usdt::format
