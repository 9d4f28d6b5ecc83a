// Returns the records of a trace's chunks merged into one sequence in the
// order of formats/FORMAT.md section 4. Chunks are sorted by min_time_ns and
// loaded (read, checked against the index entry, decompressed) only when
// their turn comes; a k-way merge runs over the chunks that overlap in time,
// so memory stays bounded by them, and the reader's memory budget
// (ReaderOptions::memory_budget) caps it against hostile files. A chunk that is bad or over the cap
// is skipped and reported in the diagnostics; the others are still read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/chunk_codec.h"
#include "formats/chunk_loader.h"
#include "formats/chunk_prefetcher.h"
#include "formats/file_layout.h"
#include "formats/reader_state.h"
#include "formats/record_filter.h"

namespace usdt::format {

class ChunkMerger {
 public:
  // chunks: as located, in file order (their position is the tie-break).
  ChunkMerger(ReaderState& state, std::vector<IndexEntry> chunks);
  ChunkMerger(const ChunkMerger&) = delete;
  ChunkMerger& operator=(const ChunkMerger&) = delete;

  // Before the first next().
  void set_filter(ReadFilter f) {
    loader_.set_arguments(f.arguments);
    // No event before the window passes. (Not the segment's start: a
    // segment's reader must meet a chunk's bad values where a reader of the
    // whole trace meets them, so that every -j gives the same output.)
    loader_.set_skip_events_before(f.time_min_ns.value_or(0));
    filter_.set(std::move(f), st_.sites.size());
  }

  // The chunks as located, in file order (what the constructor was given).
  std::vector<IndexEntry> entries() const;
  // The headers of the chunks, in file order.
  std::vector<ChunkHeader> chunk_headers() const;

  // Makes the next record that passes the filter current; false at the end.
  // The decoder of the previous record lives until this call (its strings).
  bool next();
  // The records next() would return one by one, when they are a run of
  // events of one chunk that the filter passes and that no other chunk's
  // record comes between: their number (the last becomes current, *first
  // is the first); 0 when next() must be called instead. They stay valid
  // until the next call of either.
  uint32_t next_events(const Event** first);
  // The decoder whose current record is the one to return; nullptr before
  // the first record and after the last.
  const ChunkDecoder* current() const { return out_; }

 private:
  struct Chunk {
    IndexEntry entry;
    uint64_t seq;  // file order
  };
  struct Active {
    std::unique_ptr<ChunkDecoder> d;
    uint64_t seq = 0;
    uint64_t offset = 0;
    uint64_t emitted = 0;
    uint64_t skipped = 0;  // records_skipped() counted so far
    bool owned = true;     // its diagnostics are counted here (RecordFilter::owns)
    bool check = true;     // its records go through the filter (RecordFilter::passes_whole)
  };

  void bad_chunk(const IndexEntry& e, const std::string& why);
  // Reads, checks and decompresses one chunk (or takes it from the
  // prefetcher); nullptr when it is bad.
  std::unique_ptr<ChunkDecoder> load(const IndexEntry& e);
  // What the chunks held for the merge may still take of chunk_room_.
  uint64_t room() const;
  // Reports a chunk that needs more than room() as left out.
  void over_budget(const IndexEntry& e);
  // Reports what went wrong with a prepared chunk, in the serial order of
  // the checks; its decoder when nothing did.
  std::unique_ptr<ChunkDecoder> accept(const IndexEntry& e, PreparedChunk p);
  // With decode_threads > 1: starts the workers on the chunks load_due()
  // will ask for (the filter is known by now).
  void start_prefetch();
  static bool before(const Active& a, const Active& b);
  static bool heap_after(const Active& a, const Active& b);
  void push(Active a);
  Active pop_heap_min();
  // Loads every pending chunk that may hold a record no later than the
  // smallest one among the active chunks.
  void load_due();
  void retire_current();
  // After cur_ gave records: makes the active chunk with the smallest next
  // record cur_ again.
  void keep_smallest_current();
  // The time before which cur_'s records come first: the next chunk to
  // load and every other active chunk's next record begin there.
  uint64_t merge_limit() const;
  // In a chunk that needs checks: passes over the events of cur_'s batch
  // that the filter drops (before a --since window, outside a segment, of
  // other sites or threads), as next() would one by one; their number.
  uint32_t pass_over_dropped_events();
  // Ends a decoder, keeping its buffer for the next load (serial path).
  void drop(std::unique_ptr<ChunkDecoder> d);
  // Ends the retired decoder, giving back what it held.
  void release_retired();

  ReaderState& st_;
  RecordFilter filter_;
  std::vector<Chunk> chunks_;    // sorted by (min_time_ns, file order)
  size_t pending_ = 0;           // the next chunk to load
  uint64_t active_payload_ = 0;  // bytes held by cur_ and heap_ (held_bytes)
  uint64_t chunk_room_ = 0;      // the budget's share for them
  uint64_t ahead_room_ = 0;      // the budget's share for chunks decoded ahead
  uint64_t pending_min_ = 0;     // min_time_ns of chunks_[pending_]
  Active cur_;                   // the active chunk with the smallest next record
  std::vector<Active> heap_;     // the other active chunks, a min-heap
  std::unique_ptr<ChunkDecoder> retired_;
  const ChunkDecoder* out_ = nullptr;
  bool done_ = false;
  bool started_ = false;
  ChunkLoader loader_;                            // the serial path's
  std::unique_ptr<ChunkPrefetcher> prefetch_;     // the parallel path's
  size_t prefetch_next_ = 0;                      // the next job to take
};

}  // namespace usdt::format
