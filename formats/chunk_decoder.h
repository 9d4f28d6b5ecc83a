// The decoder of a chunk's payload (formats/FORMAT.md, "Chunk block"): it
// streams the records of a decompressed payload back out in time order. It is
// lazy: it holds the payload and one look-ahead record per kind, never a
// decoded copy of the whole chunk (unless drained for a worker thread).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "formats/byte_cursor.h"
#include "formats/chunk_layout.h"
#include "formats/file_layout.h"
#include "formats/trace_reader.h"
#include "formats/trace_types.h"

namespace usdt::format {

// Order of records with equal times, within and across chunks.
inline uint8_t record_rank(RecordKind kind) {
  switch (kind) {
    case RecordKind::process:
      return 0;
    case RecordKind::event:
      return 1;
    case RecordKind::lost:
      return 2;
  }
  return 3;
}

// Streams the records of one decompressed payload in (time, rank) order.
// Never reads outside the payload; a malformed payload stops the stream with
// error() set. Validates site ids against the probe table so that consumers
// can index per-site tables safely. The StringArgs of the current event point
// into the payload and live in the decoder: valid until the batch after the
// next one is decoded (at least until the next advance()) and while the
// decoder lives. The addresses of an event's stack live in the decoder: valid
// while it lives.
class ChunkDecoder {
 public:
  // site_arg_counts[i] is the number of arguments of site i; bit j of
  // site_string_masks[i] (when given: else no site has strings) says that
  // argument j of site i is a string; site_frames[i] (when given) that the
  // last argument of site i is the stack pointer, which the decoder moves
  // into Event::frame.
  ChunkDecoder(std::string payload, const std::vector<uint8_t>* site_arg_counts,
               const std::vector<uint16_t>* site_string_masks = nullptr,
               const std::vector<uint8_t>* site_frames = nullptr);
  ChunkDecoder(const ChunkDecoder&) = delete;
  ChunkDecoder& operator=(const ChunkDecoder&) = delete;

  // Leaves the events' arguments undecoded (arg_count 0, as if the events
  // had none), for a reader whose command looks at none: about a fifth of
  // the decoding. The argument columns, the shape column (each event's
  // argument count and missing mask) and strings are then not checked
  // either. Chunks whose events carry a frame (function probes) decode
  // them all the same: the frame is their last argument. Before start().
  void skip_arguments() { want_args_ = false; }
  // Events earlier than ns will be dropped unread (a reader's window starts
  // there): with skip_arguments() and no stacks, whole batches of them are
  // passed over with only their times decoded, and their other columns are
  // neither decoded nor checked. They count in events_passed_over(), not
  // among the records. Before start().
  void skip_events_before(uint64_t ns) { skip_before_ns_ = ns; }
  uint64_t events_passed_over() const { return passed_over_; }

  // Parses the sections; fails when the payload is malformed or its header
  // copy differs from expected (the uncompressed header was damaged), or
  // when what decoding it holds would exceed max_held bytes (over_budget()
  // then says so). transient: bytes the caller holds for the chunk until the
  // payload is parsed (its compressed block), counted until then.
  bool start(const ChunkHeader& expected, uint64_t max_held = UINT64_MAX, uint64_t transient = 0);

  // Whether a record remains; then its sort key.
  bool has_next() const { return has_ev_ || has_pe_ || has_le_; }
  uint64_t next_time() const { return next_time_; }
  uint8_t next_rank() const { return next_rank_; }
  // Makes the next record current.
  void advance() {
    // The common case inline: events only, within the current batch.
    if (next_kind_ == RecordKind::event && pos_ + 1 < len_ && !has_pe_ && !has_le_) {
      kind_ = RecordKind::event;
      cur_event_ = &evs_[pos_++];
      next_time_ = evs_[pos_].time_ns;
      return;
    }
    advance_slow();
  }

  // Makes current at once the events that advance() would make current one
  // after another, as long as they lie in the batch at hand (not its last,
  // whose advance decodes the next batch), come before any other kind of
  // record, and are earlier than `before` (ns). *first is the first of them,
  // the last is the current record; each stays valid as long as it would
  // have as the current one. Returns their number: 0 when advance() must go
  // on (the next record is of another kind, at or after `before`, or ends
  // the batch).
  uint32_t take_events_before(uint64_t before, const Event** first) {
    if (!events_next() || pos_ + 1 >= len_) return 0;
    // Events are in time order: all but the last, or those before `before`.
    uint32_t end = len_ - 1;
    if (evs_[end - 1].time_ns >= before) end = run_end(before, [](const Event&) { return true; });
    return take_until(end, first);
  }

  // take_events_before for the events that keep(event) accepts: it stops
  // at the first it does not.
  template <typename Keep>
  uint32_t take_events_while(uint64_t before, const Event** first, Keep keep) {
    return take_until(run_end(before, keep), first);
  }

  // Passes over the events that take_events_before would take, as long as
  // drop(event) says so (events a filter drops); the current record stays.
  // Returns their number.
  template <typename Drop>
  uint32_t skip_events_while(uint64_t before, Drop drop) {
    const uint32_t end = run_end(before, drop);
    const uint32_t n = end - pos_;
    if (n == 0) return 0;
    pos_ = end;
    next_time_ = evs_[end].time_ns;
    return n;
  }

  RecordKind kind() const { return kind_; }
  const Event& event() const { return *cur_event_; }
  const ProcessEvent& process() const { return pe_cur_; }
  const LostEvent& lost() const { return le_cur_; }

  // What the decoder holds, by the reader's accounting (formats/
  // read_budget.h): itself, the payload, the tables and stacks decoded from
  // it, and room for its records decoded whole (drain()). A function of the
  // payload alone, so that every reader of a chunk counts the same.
  uint64_t held_bytes() const { return held_; }
  // The most it held at once, the transient bytes of start() included; when
  // start() failed, at least what it would have needed to go on.
  uint64_t peak_held() const { return peak_held_; }
  bool over_budget() const { return over_budget_; }

  // Gives up the payload's buffer, for the next chunk's decompression to
  // reuse (ChunkLoader::recycle); the decoder is done with after this.
  std::string take_payload_buffer() { return std::move(payload_); }

  // Decodes every remaining record now (call right after a successful
  // start()) and keeps them, so that the stream that follows is the same
  // sequence of records, ending the same way (error() set when it failed),
  // at the cost of holding them decoded. Lets a worker thread do the
  // decoding while another one merges (formats/chunk_prefetcher.h). The
  // payload is released when no string argument points into it.
  void drain();
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }
  uint64_t records_skipped() const { return skipped_; }

 private:
  bool fail(std::string why);
  // A column loop stopped: on a value out of range (why) or because the
  // column ended early or held a malformed varint.
  bool column_failed(const ByteCursor& col, const char* why) {
    return fail(col.ok() ? why : "event columns end early");
  }
  // Whether the next record is an event of the batch at hand, with no
  // record of another kind still to merge in.
  bool events_next() const { return next_kind_ == RecordKind::event && !has_pe_ && !has_le_; }
  // From pos_ on, the index after the events that lie in the batch at hand
  // (not its last), are earlier than `before` and satisfy pred; pos_ when
  // there are none or the next record is not such an event.
  template <typename Pred>
  uint32_t run_end(uint64_t before, Pred pred) const {
    if (!events_next()) return pos_;
    uint32_t end = pos_;
    while (end + 1 < len_ && evs_[end].time_ns < before && pred(evs_[end])) ++end;
    return end;
  }
  // Makes the events from pos_ to end (exclusive) current at once.
  uint32_t take_until(uint32_t end, const Event** first) {
    const uint32_t n = end - pos_;
    if (n == 0) return 0;
    *first = &evs_[pos_];
    kind_ = RecordKind::event;
    cur_event_ = &evs_[end - 1];
    pos_ = end;
    next_time_ = evs_[end].time_ns;
    return n;
  }
  void advance_slow();
  void decode_batch();
  // The parts of decode_batch, each over the batch's n events b; false
  // when the batch failed (fail() was called). Times, then sites, threads
  // and CPUs, then the argument shapes, then the arguments.
  struct ArgShapes {
    uint32_t max_count = 0;         // the most arguments of an event of the batch
    uint32_t min_count = kMaxArgs;  // every event of the batch has this many
    uint64_t missing_any = 0;       // the arguments some event of it misses
  };
  bool decode_times(Event* b, uint32_t n);
  bool decode_places(Event* b, uint32_t n);
  bool decode_shapes(Event* b, uint32_t n, ArgShapes& shapes);
  bool decode_arguments(Event* b, uint32_t n, const ArgShapes& shapes);
  bool decode_strings(Event* batch, uint32_t n);
  void take_frames(Event* batch, uint32_t n);
  void decode_process();
  void decode_lost();
  void pick_next();
  // Counts bytes held; false, failing the chunk as over budget, when they
  // would exceed max_held_.
  bool hold(uint64_t bytes);
  bool parse_sections(ByteCursor in);
  bool parse_events(ByteCursor section);
  bool add_local_site(uint64_t id);
  bool parse_stacks(ByteCursor section);
  bool parse_stack_refs(ByteCursor& section, uint64_t stacks);
  uint64_t records_reserve() const;
  void decode_process_row(uint8_t kind, ByteCursor row);

  std::string payload_;
  uint64_t max_held_ = UINT64_MAX;
  uint64_t held_ = 0;
  uint64_t peak_held_ = 0;
  bool over_budget_ = false;
  uint64_t arg_bytes_ = 0;      // bytes of the argument columns
  uint64_t process_bytes_ = 0;  // bytes of the process events' rows
  const std::vector<uint8_t>* site_arg_counts_;
  const std::vector<uint16_t>* site_string_masks_;
  const std::vector<uint8_t>* site_frames_;
  ChunkHeader header_;
  std::string error_;
  uint64_t skipped_ = 0;

  // Events.
  uint64_t events_left_ = 0;
  uint64_t ev_time_ = 0;
  std::vector<uint32_t> sites_;         // local index -> site id
  std::vector<uint8_t> site_args_;      // local index -> argument count
  std::vector<uint16_t> site_strings_;  // local index -> string mask
  uint16_t chunk_strings_ = 0;          // OR of site_strings_: 0 = nothing to do for strings
  std::vector<uint8_t> site_frame_;     // local index -> 1 + index of the frame argument, 0 = none
  bool chunk_frames_ = false;           // some site of the chunk has a frame
  bool want_args_ = true;               // skip_arguments() not called
  uint64_t skip_before_ns_ = 0;         // skip_events_before()
  uint64_t passed_over_ = 0;            // events of whole batches passed over
  bool decode_args_ = true;             // want_args_, or a frame needs them
  ByteCursor strings_;                  // the strings section's bytes not yet used
  // Stacks (1.3), decoded and checked whole by start(): the addresses of the
  // distinct stacks, the stacks (index 0 stands for "no stack", so that a
  // reference indexes it directly), and each event's reference, in event
  // order (empty without a stacks section).
  struct DecodedStack {
    uint32_t at = 0;
    uint16_t depth = 0;
    bool truncated = false;
  };
  std::vector<uint64_t> stack_frames_;
  std::vector<DecodedStack> stacks_;
  std::vector<uint32_t> stack_refs_;
  // Event::stack_key of this chunk's stack k: stack_key_base_ | k, the base
  // unique to the chunk's decoding in this process.
  uint64_t stack_key_base_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> threads_;  // local index -> pid, tid
  std::vector<uint64_t> prev_;                          // local site * kMaxArgs + i
  ByteCursor time_col_, site_col_, thread_col_, cpu_col_, shape_col_, arg_col_[kMaxArgs];
  uint32_t arg_delta_mask_ = 0;
  // Events are decoded column by column in batches (tight loops per column),
  // into two alternating buffers so that the current event stays valid
  // while the next batch is decoded. The look-ahead is batch_[buf_][pos_].
  static constexpr uint32_t kBatch = 64;
  Event batch_[2][kBatch];
  uint32_t batch_site_[kBatch];  // local site index of each event of the batch
  int buf_ = 0;
  // The StringArgs of batch_[b][j] argument i are at strings_of_[b][j * kMaxArgs + i];
  // allocated once, for chunks with string arguments only.
  std::vector<StringArg> strings_of_[2];
  uint32_t pos_ = 0, len_ = 0;
  const Event* evs_ = batch_[0];  // the events being returned: a batch, or replay_events_
  const Event* cur_event_ = &batch_[0][0];
  bool has_ev_ = false;

  // Process events.
  ByteCursor process_rows_;
  uint64_t process_left_ = 0;
  uint64_t pe_time_ = 0;
  ProcessEvent pe_next_, pe_cur_;
  bool has_pe_ = false;

  // Lost events.
  ByteCursor lost_rows_;
  uint64_t lost_left_ = 0;
  uint64_t le_time_ = 0;
  LostEvent le_next_, le_cur_;
  bool has_le_ = false;

  // After drain(): the records to return, in their kinds' orders (merged
  // again by pick_next, as they were the first time). Events are kept
  // packed (an Event is mostly room for 12 arguments) and unpacked a batch
  // at a time; their string arguments point to StringArgs in a deque (their
  // addresses stay), whose bytes stay in the payload.
  struct PackedEvent {
    uint64_t time_ns;
    uint32_t pid, tid, cpu, site_id;
    uint8_t arg_count;
    uint16_t missing_mask, string_mask;
    uint64_t frame;
    const uint64_t* stack;  // into stack_frames_
    uint16_t stack_depth;
    bool stack_truncated;
    uint64_t stack_key;
  };
  void unpack_batch();
  bool replay_ = false;
  std::vector<PackedEvent> replay_events_;
  std::vector<uint64_t> replay_args_;  // arg_count values per event, in event order
  std::vector<ProcessEvent> replay_process_;
  std::vector<LostEvent> replay_lost_;
  std::deque<StringArg> replay_strings_;
  size_t replay_ev_ = 0, replay_arg_ = 0, replay_pe_ = 0, replay_le_ = 0;

  RecordKind kind_ = RecordKind::event;
  RecordKind next_kind_ = RecordKind::event;
  uint64_t next_time_ = 0;
  uint8_t next_rank_ = 0;
};

}  // namespace usdt::format
