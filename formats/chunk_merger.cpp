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
  c.kept_buffers = loader_buffers(st.budget.limit());
  return c;
}

}  // namespace

ChunkMerger::ChunkMerger(ReaderState& state, std::vector<IndexEntry> chunks)
    : st_(state), loader_(context_of(state)) {
  // What the tables and the serial loader's buffers leave of the budget:
  // three quarters for the chunks held for the merge, a quarter for those
  // decoded ahead on worker threads (kept whether or not there are any, so
  // that every reader of the file skips the same chunks).
  const uint64_t room = st_.budget.room();
  ahead_room_ = room / 4;
  chunk_room_ = room - ahead_room_;
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

uint64_t ChunkMerger::room() const { return chunk_room_ - std::min(active_payload_, chunk_room_); }

void ChunkMerger::over_budget(const IndexEntry& e) {
  if (!filter_.owns(e.header)) return;  // another segment's reader says it
  st_.budget_problem(
      e.offset, "chunk at " + st_.where(e.offset) + " needs more than the " +
                    byte_size_text(room()) + " left of the " + byte_size_text(chunk_room_) +
                    " that the reader's memory budget of " + byte_size_text(st_.budget.limit()) +
                    " keeps for chunks overlapping in time: skipped");
}

// The checks in the order a load with this merger's room runs them
// (ChunkLoader::load), so that a chunk a worker loaded with more room is
// judged as if loaded here: the block, then the need up to where loading
// stopped, which is the same whatever the room (PreparedChunk::need).
std::unique_ptr<ChunkDecoder> ChunkMerger::accept(const IndexEntry& e, PreparedChunk p) {
  if (p.over_budget || e.block_size > room()) {
    over_budget(e);
    return nullptr;
  }
  if (!p.frame_error.empty()) {
    bad_chunk(e, p.frame_error);
    return nullptr;
  }
  if (p.need > room()) {
    over_budget(e);
    return nullptr;
  }
  if (!p.decode_error.empty() || !p.decoder) {
    bad_chunk(e, p.decode_error);
    return nullptr;
  }
  if (filter_.owns(e.header)) ++st_.diag.chunks_read;
  st_.budget.note_transient(p.need);
  return std::move(p.decoder);
}

std::unique_ptr<ChunkDecoder> ChunkMerger::load(const IndexEntry& e) {
  if (prefetch_) {
    // load_due() asks for the chunks in the order start_prefetch() gave.
    PreparedChunk p = prefetch_->take(prefetch_next_++);
    st_.ahead_peak =
        prefetch_->peak() + st_.options.decode_threads * loader_.context().kept_buffers;
    if (!p.deferred) return accept(e, std::move(p));
  }
  // Within the room left: nothing is read or decompressed beyond it.
  return accept(e, loader_.load(e, room()));
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
  // Their share of the budget, less their loaders' buffers; none left: no
  // decoding ahead (the records are the same without).
  const uint64_t buffers = uint64_t{threads} * loader_.context().kept_buffers;
  if (ahead_room_ <= buffers) return;
  const uint64_t ahead = ahead_room_ - buffers;
  // The serial loader's context: the filter's choices (arguments) included.
  prefetch_ = std::make_unique<ChunkPrefetcher>(loader_.context(), std::move(jobs), threads, window,
                                                std::min(ahead, st_.options.decode_ahead_bytes));
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
    active_payload_ += d->held_bytes();
    (void)st_.budget.take(d->held_bytes());  // within room(): for the accounting
    const bool check = !filter_.passes_whole(c.entry.header);
    push(Active{std::move(d), c.seq, c.entry.offset, 0, skipped, owned, check});
  }
  pending_min_ = pending_ < chunks_.size() ? chunks_[pending_].entry.header.min_time_ns
                                           : std::numeric_limits<uint64_t>::max();
}

void ChunkMerger::release_retired() {
  if (!retired_) return;
  active_payload_ -= retired_->held_bytes();
  st_.budget.give_back(retired_->held_bytes());
  drop(std::move(retired_));
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
  // Held (and counted) until the caller is done with its last record.
  release_retired();
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
  release_retired();
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
  release_retired();
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
