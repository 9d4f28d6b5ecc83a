// The flight recorder's memory (--flight-recorder): the recording's chunks,
// encoded and compressed as a trace file holds them, newest last, at most
// `max_bytes` of them and (with a duration) none that ended more than
// `max_age_ns` before the newest record. What is pushed out is gone:
// counted by cause (the ring was full; older than the duration), apart
// from what a snapshot saved first. The process records of the chunks
// pushed out go into the names as of the oldest chunk held (base_names()),
// which a snapshot carries.
//
// Exactness: chunks overlap in time (per-CPU buffers drain at different
// moments), so the ring keeps the horizon, the latest time of any record
// pushed out: every record after it is still held, and a snapshot that
// begins after it holds every record of its window.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "formats/block_output.h"
#include "formats/file_layout.h"
#include "formats/trace_types.h"
#include "record/output/thread_names.h"

namespace usdt::record {

// One chunk as a trace file holds it, and what a snapshot needs of it
// without decoding: its header, its events per site, its process records.
struct RingChunk {
  std::string block;
  format::ChunkHeader header;
  format::SiteCounts counts;
  std::vector<format::ProcessEvent> processes;
};

class FlightRing {
 public:
  FlightRing(uint64_t max_bytes, uint64_t max_age_ns)
      : max_bytes_(max_bytes), max_age_ns_(max_age_ns) {}

  // Adds the newest chunk, then pushes out what no longer fits.
  void push(std::shared_ptr<const RingChunk> chunk);
  // Pushes out what is older than the duration before newest_ns.
  void expire(uint64_t newest_ns);

  // The chunks held that may hold records of [begin, end], oldest first;
  // marks them saved (a snapshot took them: whole when they lie inside the
  // window, in part when it cuts them).
  std::vector<std::shared_ptr<const RingChunk>> take(uint64_t begin, uint64_t end);

  // The latest time of any record pushed out (0: none yet).
  uint64_t horizon() const { return horizon_; }
  const ThreadNames& base_names() const { return base_names_; }
  // The process records of the held chunks, for names as of a later time.
  std::vector<format::ProcessEvent> held_processes() const;

  uint64_t bytes() const { return bytes_; }
  uint64_t events() const { return events_; }
  uint64_t oldest_ns() const;  // 0 when empty
  // Events pushed out before any snapshot took them, by cause.
  uint64_t overwritten_full() const { return overwritten_full_; }
  uint64_t overwritten_old() const { return overwritten_old_; }
  // Events pushed out after a snapshot took them; those of chunks a
  // snapshot took only in part (at its window's edges: some of their events
  // are in it, which ones the ring does not count) apart.
  uint64_t released_saved() const { return released_saved_; }
  uint64_t released_partly_saved() const { return released_partly_saved_; }

 private:
  struct Held {
    std::shared_ptr<const RingChunk> chunk;
    bool saved = false;       // whole, by some snapshot
    bool saved_part = false;  // in part, by some snapshot
  };
  enum class Cause { full, old };
  void pop_oldest(Cause cause);

  uint64_t max_bytes_;
  uint64_t max_age_ns_;  // 0: by size only
  std::deque<Held> chunks_;
  uint64_t bytes_ = 0;
  uint64_t events_ = 0;
  uint64_t horizon_ = 0;
  ThreadNames base_names_;
  uint64_t overwritten_full_ = 0;
  uint64_t overwritten_old_ = 0;
  uint64_t released_saved_ = 0;
  uint64_t released_partly_saved_ = 0;
};

}  // namespace usdt::record
