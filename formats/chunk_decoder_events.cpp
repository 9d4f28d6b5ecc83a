// The events of a chunk's payload (formats/FORMAT.md, "Events section:
// columns"), decoded a batch at a time column by column, with their frames,
// strings and stacks; and the drained form a worker thread hands over.
#include <algorithm>

#include "formats/chunk_decoder.h"

namespace usdt::format {

// Decodes the next batch of events (at most kBatch) into batch_[buf_],
// column by column. Each column's loop stops at the first bad value or where
// the column ends early, and the batch fails there: the later columns index by
// what the earlier ones wrote (the shape check reads batch_site_), so none may
// run on a column left half read.
void ChunkDecoder::decode_batch() {
  pos_ = 0;
  len_ = 0;
  has_ev_ = false;
  evs_ = batch_[buf_];
  if (replay_) return unpack_batch();
  uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(events_left_, kBatch));
  if (n == 0) {
    // The string lengths must add up to the strings section exactly.
    if (decode_args_ && !strings_.at_end())
      fail("strings section is longer than the events' strings");
    return;
  }
  Event* b = batch_[buf_];
  if (!decode_times(b, n)) return;
  // Batches wholly before skip_before_ns_: their other columns passed over.
  // (Not with arguments, whose deltas and strings run from event to event,
  // nor with stacks.)
  while (ev_time_ < skip_before_ns_ && !decode_args_ && stack_refs_.empty()) {
    if (!site_col_.skip_varints(n) || !thread_col_.skip_varints(n) || !cpu_col_.skip_varints(n)) {
      return (void)fail("event columns end early");
    }
    events_left_ -= n;
    passed_over_ += n;
    n = static_cast<uint32_t>(std::min<uint64_t>(events_left_, kBatch));
    if (n == 0) return;
    if (!decode_times(b, n)) return;
  }
  const uint64_t first = header_.events - events_left_;  // of this batch, in event order
  events_left_ -= n;
  if (!decode_places(b, n)) return;
  // The batches start as Events with nothing (the constructor's), and the
  // fields that a chunk never fills (arguments when skipped, frames,
  // stacks) are never written, so they stay empty without a store per event.
  ArgShapes shapes;
  // Else (skip_arguments()) the events read as having none, and the shape
  // column, which only says how many arguments each has, stays unread
  // like the argument columns.
  if (decode_args_ && !decode_shapes(b, n, shapes)) return;
  if (!decode_arguments(b, n, shapes)) return;
  if (chunk_frames_) take_frames(b, n);
  if (chunk_strings_ != 0 && decode_args_ && !decode_strings(b, n)) return;
  if (!stack_refs_.empty()) {
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t ref = stack_refs_[first + j];
      const DecodedStack& st = stacks_[ref];
      b[j].stack = st.depth != 0 ? stack_frames_.data() + st.at : nullptr;
      b[j].stack_depth = st.depth;
      b[j].stack_truncated = st.truncated;
      b[j].stack_key = ref != 0 ? stack_key_base_ | ref : 0;
    }
  }
  len_ = n;
  has_ev_ = true;
}

bool ChunkDecoder::decode_times(Event* b, uint32_t n) {
  const uint64_t max_time = header_.max_time_ns;
  uint64_t t = ev_time_;
  const bool in_range = time_col_.varints(n, [&](uint32_t j, uint64_t delta) {
    if (delta > max_time - t) return false;
    t += delta;
    b[j].time_ns = t;
    return true;
  });
  if (!in_range) return column_failed(time_col_, "event time outside the chunk's time range");
  ev_time_ = t;
  return true;
}

bool ChunkDecoder::decode_places(Event* b, uint32_t n) {
  const uint32_t* sites = sites_.data();
  const size_t n_sites = sites_.size();
  bool in_range = site_col_.varints(n, [&](uint32_t j, uint64_t ls) {
    if (ls >= n_sites) return false;
    batch_site_[j] = static_cast<uint32_t>(ls);
    b[j].site_id = sites[ls];
    return true;
  });
  if (!in_range) return column_failed(site_col_, "event refers to a site outside the chunk's table");
  const std::pair<uint32_t, uint32_t>* threads = threads_.data();
  const size_t n_threads = threads_.size();
  in_range = thread_col_.varints(n, [&](uint32_t j, uint64_t th) {
    if (th >= n_threads) return false;
    b[j].pid = threads[th].first;
    b[j].tid = threads[th].second;
    return true;
  });
  if (!in_range) {
    return column_failed(thread_col_, "event refers to a thread outside the chunk's table");
  }
  in_range = cpu_col_.varints(n, [&](uint32_t j, uint64_t cpu) {
    if (cpu > 0xffffffffu) return false;
    b[j].cpu = static_cast<uint32_t>(cpu);
    return true;
  });
  if (!in_range) return column_failed(cpu_col_, "event CPU out of range");
  return true;
}

bool ChunkDecoder::decode_shapes(Event* b, uint32_t n, ArgShapes& shapes) {
  const uint8_t* site_args = site_args_.data();
  const bool in_range = shape_col_.varints(n, [&](uint32_t j, uint64_t shape) {
    const uint32_t count = shape & 0xf;
    const uint64_t missing = shape >> 4;
    if (count > site_args[batch_site_[j]] || (missing >> count) != 0) return false;
    // Clear what the previous occupant of this slot had beyond our count.
    for (uint32_t i = count; i < b[j].arg_count; ++i) b[j].args[i] = 0;
    b[j].arg_count = static_cast<uint8_t>(count);
    b[j].missing_mask = static_cast<uint16_t>(missing);
    shapes.max_count = std::max(shapes.max_count, count);
    shapes.min_count = std::min(shapes.min_count, count);
    shapes.missing_any |= missing;
    return true;
  });
  if (!in_range) return column_failed(shape_col_, "event has more arguments than its probe site");
  return true;
}

bool ChunkDecoder::decode_arguments(Event* b, uint32_t n, const ArgShapes& shapes) {
  for (uint32_t i = 0; i < shapes.max_count; ++i) {
    ByteCursor& col = arg_col_[i];
    bool delta = arg_delta_mask_ & (1u << i);
    if (i < shapes.min_count && !(shapes.missing_any & (1u << i))) {
      // Every event of the batch holds argument i (the common case): the
      // column's values in one loop.
      const bool read = delta ? col.varints(n,
                                            [&](uint32_t j, uint64_t v) {
                                              uint64_t& prev =
                                                  prev_[size_t{batch_site_[j]} * kMaxArgs + i];
                                              prev += static_cast<uint64_t>(zigzag_decode(v));
                                              b[j].args[i] = prev;
                                              return true;
                                            })
                              : col.varints(n, [&](uint32_t j, uint64_t v) {
                                  b[j].args[i] = v;
                                  return true;
                                });
      if (!read) return fail("argument column ends early");
      continue;
    }
    for (uint32_t j = 0; j < n; ++j) {
      Event& e = b[j];
      if (i >= e.arg_count) continue;
      if (e.missing_mask & (1u << i)) {
        e.args[i] = 0;
        continue;
      }
      uint64_t v = col.varint();
      if (delta) {
        uint64_t& prev = prev_[size_t{batch_site_[j]} * kMaxArgs + i];
        v = prev + static_cast<uint64_t>(zigzag_decode(v));
        prev = v;
      }
      e.args[i] = v;
    }
    if (!col.ok()) return fail("argument column ends early");
  }
  return true;
}

// (FORMAT.md 3.4, flag bit 3), out of the arguments into Event::frame.
void ChunkDecoder::take_frames(Event* b, uint32_t n) {
  for (uint32_t j = 0; j < n; ++j) {
    Event& e = b[j];
    e.frame = 0;
    const uint32_t slot = site_frame_[batch_site_[j]];
    if (slot == 0 || e.arg_count < slot) continue;
    const int i = static_cast<int>(slot - 1);
    if (e.has_arg(i)) e.frame = e.args[i];
    e.args[i] = 0;
    e.arg_count = static_cast<uint8_t>(i);
    e.missing_mask = static_cast<uint16_t>(e.missing_mask & ((1u << i) - 1));
  }
}

// Turns the batch's string arguments, decoded as length << 1 | truncated,
// into pointers to StringArgs over the strings section, in event order then
// argument order (FORMAT.md, "Strings section").
bool ChunkDecoder::decode_strings(Event* b, uint32_t n) {
  StringArg* out = strings_of_[buf_].data();
  for (uint32_t j = 0; j < n; ++j) {
    Event& e = b[j];
    uint16_t strings =
        static_cast<uint16_t>(site_strings_[batch_site_[j]] & ((1u << e.arg_count) - 1));
    e.string_mask = strings;
    strings &= static_cast<uint16_t>(~e.missing_mask);
    while (strings != 0) {
      int i = __builtin_ctz(strings);
      strings = static_cast<uint16_t>(strings & (strings - 1));
      uint64_t length = e.args[i] >> 1;
      if (length > kMaxStringArgBytes) return fail("string argument longer than 64 KiB");
      if (length > strings_.remaining()) {
        return fail("string argument runs past the strings section");
      }
      StringArg& s = out[j * kMaxArgs + static_cast<uint32_t>(i)];
      s.bytes = strings_.bytes(length);
      s.truncated = e.args[i] & 1;
      e.args[i] = reinterpret_cast<uint64_t>(&s);
    }
  }
  return true;
}

void ChunkDecoder::unpack_batch() {
  uint32_t n = static_cast<uint32_t>(std::min<size_t>(replay_events_.size() - replay_ev_, kBatch));
  if (n == 0) return;
  Event* b = batch_[buf_];
  for (uint32_t j = 0; j < n; ++j) {
    const PackedEvent& p = replay_events_[replay_ev_ + j];
    Event& e = b[j];
    e.time_ns = p.time_ns;
    e.pid = p.pid;
    e.tid = p.tid;
    e.cpu = p.cpu;
    e.site_id = p.site_id;
    // Clear what the previous occupant of this slot had beyond our count.
    for (uint32_t i = p.arg_count; i < e.arg_count; ++i) e.args[i] = 0;
    e.arg_count = p.arg_count;
    e.missing_mask = p.missing_mask;
    e.string_mask = p.string_mask;
    e.frame = p.frame;
    e.stack = p.stack;
    e.stack_depth = p.stack_depth;
    e.stack_truncated = p.stack_truncated;
    e.stack_key = p.stack_key;
    std::copy_n(replay_args_.data() + replay_arg_, p.arg_count, e.args);
    replay_arg_ += p.arg_count;
  }
  replay_ev_ += n;
  len_ = n;
  has_ev_ = true;
}

void ChunkDecoder::drain() {
  std::vector<PackedEvent> events;
  std::vector<uint64_t> args;
  std::vector<ProcessEvent> process;
  std::vector<LostEvent> lost;
  std::deque<StringArg> strings;
  uint8_t most_args = 0;
  for (uint8_t a : site_args_) most_args = std::max(most_args, a);
  // Exactly what records_reserve() counted (start() held it).
  events.reserve(header_.events);
  args.reserve(size_t{header_.events} * most_args);
  process.reserve(header_.process_events);
  lost.reserve(header_.lost_records);
  while (has_next()) {
    advance();
    switch (kind_) {
      case RecordKind::event: {
        const Event& e = *cur_event_;
        events.push_back(PackedEvent{e.time_ns, e.pid, e.tid, e.cpu, e.site_id, e.arg_count,
                                     e.missing_mask, e.string_mask, e.frame, e.stack, e.stack_depth,
                                     e.stack_truncated, e.stack_key});
        size_t at = args.size();
        args.insert(args.end(), e.args, e.args + e.arg_count);
        // The StringArgs live in the batch buffers, reused two batches on:
        // copy them (their bytes stay in the payload).
        uint16_t present = static_cast<uint16_t>(e.string_mask & ~e.missing_mask);
        while (present != 0) {
          int i = __builtin_ctz(present);
          present = static_cast<uint16_t>(present & (present - 1));
          if (i >= e.arg_count) break;
          strings.push_back(e.string_arg(i));
          args[at + static_cast<size_t>(i)] = reinterpret_cast<uint64_t>(&strings.back());
        }
        break;
      }
      case RecordKind::process:
        process.push_back(pe_cur_);
        break;
      case RecordKind::lost:
        lost.push_back(le_cur_);
        break;
    }
  }
  replay_ = true;
  replay_events_ = std::move(events);
  replay_args_ = std::move(args);
  replay_process_ = std::move(process);
  replay_lost_ = std::move(lost);
  replay_strings_ = std::move(strings);
  std::vector<uint32_t>().swap(stack_refs_);  // the packed events point at their stacks
  if (replay_strings_.empty()) std::string().swap(payload_);
  // The same start as start() made: look-ahead of each kind, then the first.
  buf_ = 0;
  decode_batch();
  decode_process();
  decode_lost();
  if (has_next()) pick_next();
}

}  // namespace usdt::format
