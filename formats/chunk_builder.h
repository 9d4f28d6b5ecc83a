// The encoder of a chunk's payload (formats/FORMAT.md, "Chunk block"): what
// the writer buffers between flushes and how it becomes bytes. Events are
// stored by column (time deltas, site, thread, CPU, argument shape, one column
// per argument index) so that zstd sees long runs of similar bytes; process
// events and lost-event records are short row lists.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/chunk_layout.h"
#include "formats/file_layout.h"
#include "formats/trace_types.h"

namespace usdt::format {

// Collects records in any order; encode() sorts them by time and writes a payload.
// add() copies the bytes of an event's string arguments (bits of string_mask,
// checked by the caller against the site): the caller may reuse them at once.
// A string argument with a null StringArg* is stored as missing; one over
// kMaxStringArgBytes is cut and marked truncated. Stacks (1.3) are copied
// too, each distinct one once per chunk; one deeper than kMaxStackDepth is cut
// and marked truncated.
class ChunkBuilder {
 public:
  void add(const Event& event);
  void add(const ProcessEvent& event);
  void add(const LostEvent& event);

  bool empty() const { return records() == 0; }
  uint64_t records() const { return events_.size() + process_.size() + lost_.size(); }
  uint64_t events() const { return events_.size(); }
  // Roughly the payload size encode() would produce, before zstd.
  size_t estimated_size() const { return estimated_size_; }

  // Replaces payload with the encoded chunk (the header copy first), returns
  // the header, and empties the builder.
  ChunkHeader encode(std::string& payload);

 private:
  struct PendingEvent {
    uint64_t time_ns;
    uint32_t pid, tid, cpu, site_id;
    uint32_t args_at;      // index of the first present argument in args_
    uint16_t shape;        // arg_count | missing_mask << 4, as in the shape column
    uint16_t string_mask;  // present string arguments only
    uint32_t stack;        // 0: none; k: stacks_[k - 1]
  };
  // A distinct stack of the chunk: its addresses are
  // stack_frames_[at, at + depth).
  struct PendingStack {
    uint32_t at;
    uint16_t depth;
    bool truncated;
  };
  // The stack's number (1-based) among the chunk's distinct stacks, added
  // when new.
  uint32_t add_stack(const uint64_t* frames, uint32_t depth, bool truncated);
  void encode_stacks(std::string& out);
  // A present string argument in args_: where its bytes are in strings_,
  // their length and whether they were cut.
  static uint64_t pack_string(size_t at, size_t length, bool truncated) {
    return (uint64_t{at} << 18) | (uint64_t{length} << 1) | (truncated ? 1 : 0);
  }
  // The chunk's site and thread tables (local index -> site id, pid and
  // tid), filled as the columns are written.
  struct LocalTables {
    std::vector<uint32_t> site_ids;
    std::unordered_map<uint32_t, uint32_t> local_site;
    std::vector<std::pair<uint32_t, uint32_t>> threads;
    std::unordered_map<uint64_t, uint32_t> local_thread;
  };
  void encode_events(std::string& out, ChunkHeader& header);
  // Writes every event's values into columns_, delta_columns_ and
  // stack_refs_ (in time order, order_), and the strings into
  // strings_section_.
  void fill_columns(uint64_t min_time_ns, LocalTables& tables);
  void put_arguments(const PendingEvent& e, uint64_t* prev, char** arg_out, char** delta_out);
  // The section: its head (count, tables, delta mask, column sizes), then
  // the smaller form of each argument column.
  void write_events_section(std::string& out, const LocalTables& tables);
  void encode_process(std::string& out, ChunkHeader& header);
  void encode_lost(std::string& out, ChunkHeader& header);

  std::vector<PendingEvent> events_;
  std::vector<uint64_t> args_;  // present arguments only, in event order
  std::string strings_;         // bytes of the string arguments, in append order
  std::vector<ProcessEvent> process_;
  std::vector<LostEvent> lost_;
  std::vector<uint64_t> stack_frames_;  // addresses of the distinct stacks
  std::vector<PendingStack> stacks_;
  std::unordered_multimap<uint64_t, uint32_t> stack_ids_;  // content hash -> index in stacks_
  size_t estimated_size_ = 0;
  // Reused across chunks to avoid reallocating.
  std::vector<std::pair<uint64_t, uint32_t>> order_;
  // A growing byte buffer written through raw pointers: appending a varint
  // to a std::string byte by byte cost more than the rest of the encoding.
  // encode_events() takes room for a whole chunk's values at once and
  // writes through a local pointer per column, which the compiler keeps in
  // a register (a store through a member pointer made it reload them all).
  class Column {
   public:
    void clear() { used_ = 0; }
    size_t size() const { return used_; }
    const char* data() const { return buf_.get(); }
    // Where the next byte goes, with room for n more bytes.
    char* room(size_t n) {
      if (capacity_ - used_ < n) grow(used_ + n);
      return buf_.get() + used_;
    }
    // The bytes up to end (from room()) are the column's.
    void commit(const char* end) { used_ = static_cast<size_t>(end - buf_.get()); }

   private:
    void grow(size_t at_least);
    std::unique_ptr<char[]> buf_ = std::make_unique<char[]>(64);  // kept across chunks
    size_t capacity_ = 64;
    size_t used_ = 0;  // [0, used_) is the column
  };
  Column columns_[kEventColumns];
  std::string strings_section_;  // the strings of the chunk in event order
  Column stack_refs_;            // the stacks section's reference column, in event order
  Column delta_columns_[kMaxArgs];
  std::vector<uint64_t> prev_;
};

}  // namespace usdt::format
