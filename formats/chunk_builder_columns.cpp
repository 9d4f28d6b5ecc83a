// The events section of a chunk's payload (formats/FORMAT.md, "Events
// section: columns"): ChunkBuilder's events in time order, written column by
// column through raw pointers, then the section's head and the smaller form
// (plain or delta) of each argument column.
#include <algorithm>
#include <cstring>

#include "formats/byte_cursor.h"
#include "formats/chunk_builder.h"

namespace usdt::format {

namespace {

// Sorts (time, index) pairs. The recorder appends each CPU's drained batch
// in time order, so a chunk is a few sorted runs: merging the runs costs
// O(n log runs) instead of a full sort, and nothing when already in order.
void sort_runs(std::vector<std::pair<uint64_t, uint32_t>>& v) {
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] < v[i - 1]) bounds.push_back(i);
  }
  if (bounds.size() == 1) return;
  if (bounds.size() > 64) {  // no useful runs: plain sort
    std::sort(v.begin(), v.end());
    return;
  }
  bounds.push_back(v.size());
  // Bottom-up: merge neighbouring runs until one is left.
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 2 < bounds.size(); r += 2) {
      std::inplace_merge(v.begin() + static_cast<ptrdiff_t>(bounds[r]),
                         v.begin() + static_cast<ptrdiff_t>(bounds[r + 1]),
                         v.begin() + static_cast<ptrdiff_t>(bounds[r + 2]));
      merged.push_back(bounds[r + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());
    bounds = std::move(merged);
  }
}

}  // namespace

void ChunkBuilder::Column::grow(size_t at_least) {
  size_t capacity = 2 * capacity_;
  while (capacity < at_least) capacity *= 2;
  // Not zeroed: only the bytes written are read.
  std::unique_ptr<char[]> bigger(new char[capacity]);
  std::memcpy(bigger.get(), buf_.get(), used_);
  buf_ = std::move(bigger);
  capacity_ = capacity;
}

void ChunkBuilder::encode_events(std::string& out, ChunkHeader& h) {
  // Stable time order: equal times keep their append order.
  order_.clear();
  order_.reserve(events_.size());
  for (uint32_t i = 0; i < events_.size(); ++i) order_.emplace_back(events_[i].time_ns, i);
  sort_runs(order_);
  LocalTables tables;
  fill_columns(h.min_time_ns, tables);
  write_events_section(out, tables);
  if (!strings_section_.empty()) {
    ByteWriter o(out);
    o.u8(static_cast<uint8_t>(SectionKind::strings));
    o.str(strings_section_);
  }
  if (!stacks_.empty()) encode_stacks(out);
}

namespace {

// The local index of key in the chunk's table, added at the end when new.
template <typename Key, typename Value>
[[gnu::always_inline]] inline uint32_t local_index(std::unordered_map<Key, uint32_t>& index,
                                                   std::vector<Value>& table, Key key,
                                                   const Value& value, bool& added) {
  auto [it, fresh] = index.try_emplace(key, static_cast<uint32_t>(table.size()));
  if (fresh) table.push_back(value);
  added = fresh;
  return it->second;
}

}  // namespace

// One event's present arguments into their columns, both forms: plain
// and as the difference from prev (the site's previous values).
[[gnu::always_inline]] inline void ChunkBuilder::put_arguments(const PendingEvent& e,
                                                               uint64_t* prev, char** arg_out,
                                                               char** delta_out) {
  uint32_t at = e.args_at;
  const int arg_count = e.shape & 0xf;
  const uint32_t missing_mask = e.shape >> 4;
  for (int i = 0; i < arg_count; ++i) {
    if (missing_mask & (1u << i)) continue;
    uint64_t v = args_[at++];
    if (e.string_mask & (1u << i)) {
      // The column holds length << 1 | truncated; the bytes go to the
      // strings section in this (event, argument) order.
      uint64_t length = (v >> 1) & ((uint64_t{1} << 17) - 1);
      strings_section_.append(strings_, static_cast<size_t>(v >> 18), static_cast<size_t>(length));
      v &= (uint64_t{1} << 18) - 1;
    }
    arg_out[i] = put_varint(arg_out[i], v);
    delta_out[i] = put_varint(delta_out[i], zigzag_encode(static_cast<int64_t>(v - prev[i])));
    prev[i] = v;
  }
}

void ChunkBuilder::fill_columns(uint64_t min_time_ns, LocalTables& t) {
  for (auto& c : columns_) c.clear();
  for (auto& c : delta_columns_) c.clear();
  stack_refs_.clear();
  prev_.clear();
  strings_section_.clear();
  const bool has_stacks = !stacks_.empty();  // else no stacks section, no references
  // Room for every value of the chunk (a varint is at most 10 bytes), so
  // that the loop writes without checks, through local pointers.
  const size_t room = 10 * order_.size();
  char* time_out = columns_[kTimeColumn].room(room);
  char* site_out = columns_[kSiteColumn].room(room);
  char* thread_out = columns_[kThreadColumn].room(room);
  char* cpu_out = columns_[kCpuColumn].room(room);
  char* shape_out = columns_[kShapeColumn].room(room);
  char* stack_out = has_stacks ? stack_refs_.room(room) : nullptr;
  int arg_columns = 0;  // the most arguments of an event
  for (const PendingEvent& e : events_) arg_columns = std::max(arg_columns, e.shape & 0xf);
  char* arg_out[kMaxArgs] = {};
  char* delta_out[kMaxArgs] = {};
  for (int i = 0; i < arg_columns; ++i) {
    arg_out[i] = columns_[kArg0Column + i].room(room);
    delta_out[i] = delta_columns_[i].room(room);
  }
  uint64_t last_time = min_time_ns;
  uint32_t last_site = kNoSite, last_site_local = 0;
  uint64_t last_thread = ~uint64_t{0};
  uint32_t last_thread_local = 0;
  bool added = false;
  for (const auto& [time, index] : order_) {
    const PendingEvent& e = events_[index];
    time_out = put_varint(time_out, time - last_time);
    last_time = time;
    if (e.site_id != last_site) {
      last_site_local = local_index(t.local_site, t.site_ids, e.site_id, e.site_id, added);
      if (added) prev_.resize(t.site_ids.size() * kMaxArgs, 0);
      last_site = e.site_id;
    }
    site_out = put_varint(site_out, last_site_local);
    const uint64_t thread_key = (uint64_t{e.pid} << 32) | e.tid;
    if (thread_key != last_thread) {
      last_thread_local =
          local_index(t.local_thread, t.threads, thread_key, std::pair(e.pid, e.tid), added);
      last_thread = thread_key;
    }
    thread_out = put_varint(thread_out, last_thread_local);
    cpu_out = put_varint(cpu_out, e.cpu);
    shape_out = put_varint(shape_out, e.shape);
    if (has_stacks) stack_out = put_varint(stack_out, e.stack);
    put_arguments(e, &prev_[size_t{last_site_local} * kMaxArgs], arg_out, delta_out);
  }
  columns_[kTimeColumn].commit(time_out);
  columns_[kSiteColumn].commit(site_out);
  columns_[kThreadColumn].commit(thread_out);
  columns_[kCpuColumn].commit(cpu_out);
  columns_[kShapeColumn].commit(shape_out);
  if (has_stacks) stack_refs_.commit(stack_out);
  for (int i = 0; i < arg_columns; ++i) {
    columns_[kArg0Column + i].commit(arg_out[i]);
    delta_columns_[i].commit(delta_out[i]);
  }
}

void ChunkBuilder::write_events_section(std::string& out, const LocalTables& t) {
  // Per argument index, keep whichever form is smaller before zstd; smaller
  // varints also compress better in practice.
  uint32_t delta_mask = 0;
  const Column* chosen[kEventColumns];
  for (int c = 0; c < kEventColumns; ++c) chosen[c] = &columns_[c];
  for (int i = 0; i < kMaxArgs; ++i) {
    if (delta_columns_[i].size() < columns_[kArg0Column + i].size()) {
      delta_mask |= 1u << i;
      chosen[kArg0Column + i] = &delta_columns_[i];
    }
  }
  // The section's small head, then its size, then the columns written
  // straight into out (no intermediate copy of the body).
  std::string head;
  ByteWriter w(head);
  w.varint(events_.size());
  w.varint(t.site_ids.size());
  for (uint32_t id : t.site_ids) w.varint(id);
  w.varint(t.threads.size());
  for (auto [pid, tid] : t.threads) {
    w.varint(pid);
    w.varint(tid);
  }
  w.varint(delta_mask);
  size_t column_bytes = 0;
  for (const Column* c : chosen) {
    w.varint(c->size());
    column_bytes += c->size();
  }
  size_t body_size = head.size() + column_bytes;
  ByteWriter o(out);
  o.u8(static_cast<uint8_t>(SectionKind::events));
  o.varint(body_size);
  out.reserve(out.size() + body_size);
  o.bytes(head.data(), head.size());
  for (const Column* c : chosen) o.bytes(c->data(), c->size());
}


}  // namespace usdt::format
