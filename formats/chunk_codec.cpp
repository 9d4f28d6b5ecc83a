#include "formats/chunk_codec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "formats/byte_cursor.h"

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

// Column order in the events section.
enum Column { kTime = 0, kSite = 1, kThread = 2, kCpu = 3, kShape = 4, kArg0 = 5 };
constexpr int kColumns = kArg0 + kMaxArgs;
constexpr uint64_t kMaxComm = 4096;

// A hash of a stack's content (addresses, depth, truncated bit), to find the
// chunk's earlier copy of it.
uint64_t stack_hash(const uint64_t* frames, uint32_t depth, bool truncated) {
  uint64_t h = (uint64_t{depth} << 1) | (truncated ? 1 : 0);
  for (uint32_t i = 0; i < depth; ++i) {
    h = (h ^ frames[i]) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

void ChunkBuilder::add(const Event& e) {
  uint8_t count = std::min<uint8_t>(e.arg_count, kMaxArgs);
  uint16_t missing = static_cast<uint16_t>(e.missing_mask & ((1u << count) - 1));
  uint16_t strings = static_cast<uint16_t>(e.string_mask & ((1u << count) - 1) & ~missing);
  size_t size = 6;
  uint32_t args_at = static_cast<uint32_t>(args_.size());
  if (strings == 0) {
    for (int i = 0; i < count; ++i) {
      if (missing & (1u << i)) continue;
      args_.push_back(e.args[i]);
      size += varint_size(e.args[i]) > 2 ? 3 : 1;
    }
  } else {
    for (int i = 0; i < count; ++i) {
      if (missing & (1u << i)) continue;
      if (!(strings & (1u << i))) {
        args_.push_back(e.args[i]);
        size += varint_size(e.args[i]) > 2 ? 3 : 1;
        continue;
      }
      const auto* s = reinterpret_cast<const StringArg*>(static_cast<uintptr_t>(e.args[i]));
      if (s == nullptr) {  // could not be read: missing, as for numbers
        missing = static_cast<uint16_t>(missing | (1u << i));
        strings = static_cast<uint16_t>(strings & ~(1u << i));
        continue;
      }
      size_t length = std::min<size_t>(s->bytes.size(), kMaxStringArgBytes);
      args_.push_back(
          pack_string(strings_.size(), length, s->truncated || length < s->bytes.size()));
      strings_.append(s->bytes.data(), length);
      size += 3 + length;
    }
  }
  uint32_t stack = 0;
  if (e.stack_depth > 0 && e.stack != nullptr) {
    stack = add_stack(e.stack, e.stack_depth, e.stack_truncated);
    size += 1;
  }
  events_.push_back(PendingEvent{e.time_ns, e.pid, e.tid, e.cpu, e.site_id, args_at,
                                 static_cast<uint16_t>(count | (missing << 4)), strings, stack});
  estimated_size_ += size;
}

void ChunkBuilder::Column::grow(size_t at_least) {
  size_t capacity = 2 * capacity_;
  while (capacity < at_least) capacity *= 2;
  // Not zeroed: only the bytes written are read.
  std::unique_ptr<char[]> bigger(new char[capacity]);
  std::memcpy(bigger.get(), buf_.get(), used_);
  buf_ = std::move(bigger);
  capacity_ = capacity;
}

uint32_t ChunkBuilder::add_stack(const uint64_t* frames, uint32_t depth, bool truncated) {
  if (depth > kMaxStackDepth) {
    depth = kMaxStackDepth;
    truncated = true;
  }
  uint64_t h = stack_hash(frames, depth, truncated);
  auto [first, last] = stack_ids_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    const PendingStack& s = stacks_[it->second];
    if (s.depth == depth && s.truncated == truncated &&
        std::equal(frames, frames + depth, stack_frames_.data() + s.at)) {
      return it->second + 1;
    }
  }
  auto index = static_cast<uint32_t>(stacks_.size());
  stacks_.push_back(PendingStack{static_cast<uint32_t>(stack_frames_.size()),
                                 static_cast<uint16_t>(depth), truncated});
  stack_frames_.insert(stack_frames_.end(), frames, frames + depth);
  stack_ids_.emplace(h, index);
  // Neighbouring return addresses differ by a few bytes of svarint; a
  // generous guess keeps chunks within the reader's limit.
  estimated_size_ += 2 + 5 * size_t{depth};
  return index + 1;
}

void ChunkBuilder::add(const ProcessEvent& e) {
  process_.push_back(e);
  estimated_size_ += 16 + e.comm.size() + e.path.size() + e.build_id.size();
}

void ChunkBuilder::add(const LostEvent& e) {
  lost_.push_back(e);
  estimated_size_ += 16;
}

ChunkHeader ChunkBuilder::encode(std::string& payload) {
  ChunkHeader h;
  h.min_time_ns = std::numeric_limits<uint64_t>::max();
  h.max_time_ns = 0;
  for (const auto& e : events_) {
    h.min_time_ns = std::min(h.min_time_ns, e.time_ns);
    h.max_time_ns = std::max(h.max_time_ns, e.time_ns);
    h.site_bloom |= site_bit(e.site_id);
    h.pid_bloom |= bloom_bit(e.pid);
    h.tid_bloom |= bloom_bit(e.tid);
  }
  for (const auto& e : process_) {
    h.min_time_ns = std::min(h.min_time_ns, e.time_ns);
    h.max_time_ns = std::max(h.max_time_ns, e.time_ns);
    h.pid_bloom |= bloom_bit(e.pid);
    h.tid_bloom |= bloom_bit(e.tid);
  }
  for (const auto& e : lost_) {
    h.min_time_ns = std::min({h.min_time_ns, e.time_begin_ns, e.time_end_ns});
    h.max_time_ns = std::max({h.max_time_ns, e.time_begin_ns, e.time_end_ns});
  }
  if (empty()) h.min_time_ns = 0;
  h.events = static_cast<uint32_t>(events_.size());
  h.process_events = static_cast<uint32_t>(process_.size());
  h.lost_records = static_cast<uint32_t>(lost_.size());

  payload.clear();
  encode_chunk_header(payload, h);
  if (!events_.empty()) encode_events(payload, h);
  if (!process_.empty()) encode_process(payload, h);
  if (!lost_.empty()) encode_lost(payload, h);

  events_.clear();
  args_.clear();
  strings_.clear();
  stack_frames_.clear();
  stacks_.clear();
  stack_ids_.clear();
  process_.clear();
  lost_.clear();
  estimated_size_ = 0;
  return h;
}

void ChunkBuilder::encode_events(std::string& out, ChunkHeader& h) {
  // Stable time order: equal times keep their append order.
  order_.clear();
  order_.reserve(events_.size());
  for (uint32_t i = 0; i < events_.size(); ++i) order_.emplace_back(events_[i].time_ns, i);
  sort_runs(order_);

  std::vector<uint32_t> site_ids;
  std::unordered_map<uint32_t, uint32_t> local_site;
  std::vector<std::pair<uint32_t, uint32_t>> threads;
  std::unordered_map<uint64_t, uint32_t> local_thread;
  for (auto& c : columns_) c.clear();
  for (auto& c : delta_columns_) c.clear();
  stack_refs_.clear();
  prev_.clear();
  strings_section_.clear();

  const bool has_stacks = !stacks_.empty();  // else no stacks section, no references
  // Room for every value of the chunk (a varint is at most 10 bytes), so
  // that the loop writes without checks, through local pointers.
  const size_t room = 10 * order_.size();
  char* time_out = columns_[kTime].room(room);
  char* site_out = columns_[kSite].room(room);
  char* thread_out = columns_[kThread].room(room);
  char* cpu_out = columns_[kCpu].room(room);
  char* shape_out = columns_[kShape].room(room);
  char* stack_out = has_stacks ? stack_refs_.room(room) : nullptr;
  int arg_columns = 0;  // the most arguments of an event
  for (const PendingEvent& e : events_) arg_columns = std::max(arg_columns, e.shape & 0xf);
  char* arg_out[kMaxArgs] = {};
  char* delta_out[kMaxArgs] = {};
  for (int i = 0; i < arg_columns; ++i) {
    arg_out[i] = columns_[kArg0 + i].room(room);
    delta_out[i] = delta_columns_[i].room(room);
  }
  uint64_t last_time = h.min_time_ns;
  uint32_t last_site = kNoSite, last_site_local = 0;
  uint64_t last_thread = ~uint64_t{0};
  uint32_t last_thread_local = 0;
  for (const auto& [time, index] : order_) {
    const PendingEvent& e = events_[index];
    time_out = put_varint(time_out, time - last_time);
    last_time = time;

    if (e.site_id != last_site) {
      auto [it, added] = local_site.try_emplace(e.site_id, static_cast<uint32_t>(site_ids.size()));
      if (added) {
        site_ids.push_back(e.site_id);
        prev_.resize(site_ids.size() * kMaxArgs, 0);
      }
      last_site = e.site_id;
      last_site_local = it->second;
    }
    site_out = put_varint(site_out, last_site_local);

    uint64_t thread_key = (uint64_t{e.pid} << 32) | e.tid;
    if (thread_key != last_thread) {
      auto [it, added] =
          local_thread.try_emplace(thread_key, static_cast<uint32_t>(threads.size()));
      if (added) threads.emplace_back(e.pid, e.tid);
      last_thread = thread_key;
      last_thread_local = it->second;
    }
    thread_out = put_varint(thread_out, last_thread_local);
    cpu_out = put_varint(cpu_out, e.cpu);
    shape_out = put_varint(shape_out, e.shape);
    if (has_stacks) stack_out = put_varint(stack_out, e.stack);

    uint32_t at = e.args_at;
    uint64_t* p = &prev_[size_t{last_site_local} * kMaxArgs];
    const int arg_count = e.shape & 0xf;
    const uint32_t missing_mask = e.shape >> 4;
    for (int i = 0; i < arg_count; ++i) {
      if (missing_mask & (1u << i)) continue;
      uint64_t v = args_[at++];
      if (e.string_mask & (1u << i)) {
        // The column holds length << 1 | truncated; the bytes go to the
        // strings section in this (event, argument) order.
        uint64_t length = (v >> 1) & ((uint64_t{1} << 17) - 1);
        strings_section_.append(strings_, static_cast<size_t>(v >> 18),
                                static_cast<size_t>(length));
        v &= (uint64_t{1} << 18) - 1;
      }
      arg_out[i] = put_varint(arg_out[i], v);
      delta_out[i] = put_varint(delta_out[i], zigzag_encode(static_cast<int64_t>(v - p[i])));
      p[i] = v;
    }
  }
  columns_[kTime].commit(time_out);
  columns_[kSite].commit(site_out);
  columns_[kThread].commit(thread_out);
  columns_[kCpu].commit(cpu_out);
  columns_[kShape].commit(shape_out);
  if (has_stacks) stack_refs_.commit(stack_out);
  for (int i = 0; i < arg_columns; ++i) {
    columns_[kArg0 + i].commit(arg_out[i]);
    delta_columns_[i].commit(delta_out[i]);
  }
  // Per argument index, keep whichever form is smaller before zstd; smaller
  // varints also compress better in practice.
  uint32_t delta_mask = 0;
  const Column* chosen[kColumns];
  for (int c = 0; c < kColumns; ++c) chosen[c] = &columns_[c];
  for (int i = 0; i < kMaxArgs; ++i) {
    if (delta_columns_[i].size() < columns_[kArg0 + i].size()) {
      delta_mask |= 1u << i;
      chosen[kArg0 + i] = &delta_columns_[i];
    }
  }

  // The section's small head, then its size, then the columns written
  // straight into out (no intermediate copy of the body).
  std::string head;
  ByteWriter w(head);
  w.varint(events_.size());
  w.varint(site_ids.size());
  for (uint32_t id : site_ids) w.varint(id);
  w.varint(threads.size());
  for (auto [pid, tid] : threads) {
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
  if (!strings_section_.empty()) {
    o.u8(static_cast<uint8_t>(SectionKind::strings));
    o.str(strings_section_);
  }
  if (!stacks_.empty()) encode_stacks(out);
}

// FORMAT.md, "Stacks section": the distinct stacks in the order they were
// first appended, then one reference per event in the events section's order
// (stack_refs_, filled by encode_events).
void ChunkBuilder::encode_stacks(std::string& out) {
  std::string body;
  ByteWriter w(body);
  w.varint(stacks_.size());
  for (const PendingStack& s : stacks_) {
    const uint64_t* f = stack_frames_.data() + s.at;
    w.varint((uint64_t{s.depth} << 1) | (s.truncated ? 1 : 0));
    w.varint(f[0]);
    for (uint32_t i = 1; i < s.depth; ++i) w.svarint(static_cast<int64_t>(f[i] - f[i - 1]));
  }
  w.varint(events_.size());
  w.bytes(stack_refs_.data(), stack_refs_.size());
  ByteWriter o(out);
  o.u8(static_cast<uint8_t>(SectionKind::stacks));
  o.str(body);
}

void ChunkBuilder::encode_process(std::string& out, ChunkHeader& h) {
  std::stable_sort(
      process_.begin(), process_.end(),
      [](const ProcessEvent& a, const ProcessEvent& b) { return a.time_ns < b.time_ns; });
  std::string body, row;
  ByteWriter w(body);
  w.varint(process_.size());
  uint64_t last = h.min_time_ns;
  for (const auto& e : process_) {
    w.varint(e.time_ns - last);
    last = e.time_ns;
    w.u8(static_cast<uint8_t>(e.kind));
    row.clear();
    ByteWriter r(row);
    r.varint(e.pid);
    r.varint(e.tid);
    if (e.kind == ProcessEventKind::mmap) {
      r.varint(e.map_address);
      r.varint(e.map_length);
      r.varint(e.map_file_offset);
      r.str(std::string_view(e.build_id).substr(0, kMaxBuildId));
      r.str(std::string_view(e.path).substr(0, kMaxMappedPath));
    } else {
      r.varint(e.parent_pid);
      r.varint(e.parent_tid);
      r.str(std::string_view(e.comm).substr(0, kMaxComm));
    }
    w.str(row);
  }
  ByteWriter o(out);
  o.u8(static_cast<uint8_t>(SectionKind::process));
  o.str(body);
}

void ChunkBuilder::encode_lost(std::string& out, ChunkHeader& h) {
  std::stable_sort(lost_.begin(), lost_.end(), [](const LostEvent& a, const LostEvent& b) {
    return a.time_begin_ns < b.time_begin_ns;
  });
  std::string body;
  ByteWriter w(body);
  w.varint(lost_.size());
  uint64_t last = h.min_time_ns;
  for (const auto& e : lost_) {
    w.varint(e.time_begin_ns - last);
    last = e.time_begin_ns;
    w.svarint(static_cast<int64_t>(e.time_end_ns - e.time_begin_ns));
    w.varint(e.cpu);
    w.varint(e.site_id);
    w.varint(e.count);
  }
  ByteWriter o(out);
  o.u8(static_cast<uint8_t>(SectionKind::lost));
  o.str(body);
}

// ---------------------------------------------------------------------------

ChunkDecoder::ChunkDecoder(std::string payload, const std::vector<uint8_t>* site_arg_counts,
                           const std::vector<uint16_t>* site_string_masks,
                           const std::vector<uint8_t>* site_frames)
    : payload_(std::move(payload)),
      payload_size_(payload_.size()),
      site_arg_counts_(site_arg_counts),
      site_string_masks_(site_string_masks),
      site_frames_(site_frames) {}

bool ChunkDecoder::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  has_ev_ = has_pe_ = has_le_ = false;
  return false;
}

bool ChunkDecoder::start(const ChunkHeader& expected) {
  ByteCursor in(payload_);
  header_ = decode_chunk_header(in);
  if (!in.ok()) return fail("payload shorter than its header");
  if (!(header_ == expected)) return fail("chunk header does not match its checksummed copy");
  if (header_.min_time_ns > header_.max_time_ns && header_.records() > 0) {
    return fail("chunk time range is inverted");
  }
  bool seen[6] = {};
  while (!in.at_end()) {
    uint8_t kind = in.u8();
    uint64_t size = in.varint();
    ByteCursor section = in.sub(size);
    if (!in.ok()) return fail("section runs past the end of the payload");
    if (kind >= 1 && kind <= 5) {
      if (seen[kind]) return fail("section " + std::to_string(kind) + " appears twice");
      seen[kind] = true;
    }
    switch (static_cast<SectionKind>(kind)) {
      case SectionKind::events:
        if (!parse_events(section)) return false;
        break;
      case SectionKind::process:
        process_left_ = section.varint();
        process_rows_ = section;
        if (!section.ok() || process_left_ != header_.process_events) {
          return fail("process event count differs from the chunk header");
        }
        break;
      case SectionKind::lost:
        lost_left_ = section.varint();
        lost_rows_ = section;
        if (!section.ok() || lost_left_ != header_.lost_records) {
          return fail("lost record count differs from the chunk header");
        }
        break;
      case SectionKind::strings:
        // Used as the events' string arguments are decoded; what remains at
        // their end is damage.
        strings_ = section;
        break;
      case SectionKind::stacks:
        if (!parse_stacks(section)) return false;
        break;
      default:
        ++skipped_;  // a newer writer's section: skipped by its length
        break;
    }
  }
  if (!seen[1] && header_.events != 0) return fail("events section missing");
  if (!seen[2] && header_.process_events != 0) return fail("process section missing");
  if (!seen[3] && header_.lost_records != 0) return fail("lost section missing");
  if (seen[5] && !seen[1]) return fail("stacks section without events");
  ev_time_ = pe_time_ = le_time_ = header_.min_time_ns;
  decode_args_ = want_args_ || chunk_frames_;
  decode_batch();
  decode_process();
  decode_lost();
  pick_next();
  return !failed();
}

bool ChunkDecoder::parse_events(ByteCursor s) {
  events_left_ = s.varint();
  if (!s.ok() || events_left_ != header_.events) {
    return fail("event count differs from the chunk header");
  }
  // Every event takes at least one byte in each of the first five columns,
  // so no dictionary can be larger than the section itself.
  uint64_t n_sites = s.varint_max(s.remaining());
  sites_.clear();
  site_args_.clear();
  site_strings_.clear();
  chunk_strings_ = 0;
  site_frame_.clear();
  chunk_frames_ = false;
  for (uint64_t i = 0; i < n_sites && s.ok(); ++i) {
    uint64_t id = s.varint();
    if (id >= site_arg_counts_->size()) {
      return fail("event of site " + std::to_string(id) + ", which the probe table lacks");
    }
    sites_.push_back(static_cast<uint32_t>(id));
    site_args_.push_back((*site_arg_counts_)[id]);
    uint16_t strings = site_string_masks_ && id < site_string_masks_->size()
                           ? (*site_string_masks_)[id]
                           : uint16_t{0};
    site_strings_.push_back(strings);
    chunk_strings_ |= strings;
    const bool frame = site_frames_ && id < site_frames_->size() && (*site_frames_)[id] != 0 &&
                       (*site_arg_counts_)[id] > 0;
    site_frame_.push_back(frame ? (*site_arg_counts_)[id] : 0);
    chunk_frames_ = chunk_frames_ || frame;
  }
  if (chunk_strings_ != 0) {
    for (auto& v : strings_of_) v.resize(size_t{kBatch} * kMaxArgs);
  }
  uint64_t n_threads = s.varint_max(s.remaining() / 2);
  threads_.clear();
  for (uint64_t i = 0; i < n_threads && s.ok(); ++i) {
    uint64_t pid = s.varint_max(0xffffffffu);
    uint64_t tid = s.varint_max(0xffffffffu);
    threads_.emplace_back(static_cast<uint32_t>(pid), static_cast<uint32_t>(tid));
  }
  arg_delta_mask_ = static_cast<uint32_t>(s.varint_max((1u << kMaxArgs) - 1));
  uint64_t sizes[kColumns];
  for (auto& size : sizes) size = s.varint();
  ByteCursor* cols[kColumns] = {&time_col_, &site_col_, &thread_col_, &cpu_col_, &shape_col_};
  for (int i = 0; i < kMaxArgs; ++i) cols[kArg0 + i] = &arg_col_[i];
  for (int i = 0; i < kColumns; ++i) *cols[i] = s.sub(sizes[i]);
  if (!s.ok()) return fail("events section is malformed");
  prev_.assign(sites_.size() * kMaxArgs, 0);
  return true;
}

// FORMAT.md, "Stacks section": decoded and checked whole, so that a bad
// section fails the chunk before any of its records is returned.
bool ChunkDecoder::parse_stacks(ByteCursor s) {
  // Each stack takes at least two bytes (depth and first frame).
  uint64_t u = s.varint();
  if (!s.ok() || u == 0 || u > header_.events || u > s.remaining() / 2) {
    return fail("stacks section's count of stacks is out of range");
  }
  // Event::stack_key: a chunk of at most 2^32 events has fewer stacks.
  static std::atomic<uint64_t> decoded_stack_sections{0};
  stack_key_base_ = (decoded_stack_sections.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
  stacks_.assign(1, DecodedStack{});  // reference 0: no stack
  stacks_.reserve(u + 1);
  stack_frames_.clear();
  for (uint64_t i = 0; i < u; ++i) {
    uint64_t depth_flags = s.varint();
    uint64_t depth = depth_flags >> 1;
    if (!s.ok() || depth == 0 || depth > kMaxStackDepth) {
      return fail("stack of depth " + std::to_string(depth) + " (1.." +
                  std::to_string(kMaxStackDepth) + " allowed)");
    }
    if (depth > s.remaining()) return fail("stack runs past the stacks section");
    stacks_.push_back(DecodedStack{static_cast<uint32_t>(stack_frames_.size()),
                                   static_cast<uint16_t>(depth), (depth_flags & 1) != 0});
    uint64_t address = s.varint();
    stack_frames_.push_back(address);
    for (uint64_t k = 1; k < depth; ++k) {
      address += static_cast<uint64_t>(s.svarint());
      stack_frames_.push_back(address);
    }
    if (!s.ok()) return fail("stack runs past the stacks section");
  }
  uint64_t n = s.varint();
  if (!s.ok() || n != header_.events)
    return fail("stack reference count differs from the chunk header");
  if (n > s.remaining()) return fail("stack references run past the stacks section");
  stack_refs_.resize(n);
  for (uint64_t j = 0; j < n; ++j) {
    uint64_t ref = s.varint();
    if (ref > u) {
      return fail("event refers to stack " + std::to_string(ref) + " of " + std::to_string(u));
    }
    stack_refs_[j] = static_cast<uint32_t>(ref);
  }
  if (!s.ok()) return fail("stack references run past the stacks section");
  // Bytes after the references: room for a newer minor version, ignored.
  // The decoded stacks take up to 8 bytes per byte of the section: the memory
  // caps must see them (payload_size()).
  payload_size_ += stack_frames_.capacity() * sizeof(uint64_t) +
                   stacks_.capacity() * sizeof(DecodedStack) +
                   stack_refs_.capacity() * sizeof(uint32_t);
  return true;
}

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

  // Each column's loop stops at the first bad value or where the column
  // ends early, and the batch fails there: the later columns index by what
  // the earlier ones wrote (the shape check reads batch_site_), so none may
  // run on a column left half read.
  const uint64_t max_time = header_.max_time_ns;
  auto decode_times = [&]() {
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
  };
  if (!decode_times()) return;
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
    if (!decode_times()) return;
  }
  const uint64_t first = header_.events - events_left_;  // of this batch, in event order
  events_left_ -= n;
  const uint32_t* sites = sites_.data();
  const size_t n_sites = sites_.size();
  bool in_range = site_col_.varints(n, [&](uint32_t j, uint64_t ls) {
    if (ls >= n_sites) return false;
    batch_site_[j] = static_cast<uint32_t>(ls);
    b[j].site_id = sites[ls];
    return true;
  });
  if (!in_range) {
    return (void)column_failed(site_col_, "event refers to a site outside the chunk's table");
  }
  const std::pair<uint32_t, uint32_t>* threads = threads_.data();
  const size_t n_threads = threads_.size();
  in_range = thread_col_.varints(n, [&](uint32_t j, uint64_t th) {
    if (th >= n_threads) return false;
    b[j].pid = threads[th].first;
    b[j].tid = threads[th].second;
    return true;
  });
  if (!in_range) {
    return (void)column_failed(thread_col_, "event refers to a thread outside the chunk's table");
  }
  in_range = cpu_col_.varints(n, [&](uint32_t j, uint64_t cpu) {
    if (cpu > 0xffffffffu) return false;
    b[j].cpu = static_cast<uint32_t>(cpu);
    return true;
  });
  if (!in_range) return (void)column_failed(cpu_col_, "event CPU out of range");
  // The batches start as Events with nothing (the constructor's), and the
  // fields that a chunk never fills (arguments when skipped, frames,
  // stacks) are never written, so they stay empty without a store per event.
  uint32_t max_count = 0;
  uint32_t min_count = kMaxArgs;  // every event of the batch has this many
  uint64_t missing_any = 0;       // the arguments some event of it misses
  if (decode_args_) {
    // Else (skip_arguments()) the events read as having none, and the shape
    // column, which only says how many arguments each has, stays unread
    // like the argument columns.
    const uint8_t* site_args = site_args_.data();
    in_range = shape_col_.varints(n, [&](uint32_t j, uint64_t shape) {
      const uint32_t count = shape & 0xf;
      const uint64_t missing = shape >> 4;
      if (count > site_args[batch_site_[j]] || (missing >> count) != 0) return false;
      // Clear what the previous occupant of this slot had beyond our count.
      for (uint32_t i = count; i < b[j].arg_count; ++i) b[j].args[i] = 0;
      b[j].arg_count = static_cast<uint8_t>(count);
      b[j].missing_mask = static_cast<uint16_t>(missing);
      max_count = std::max(max_count, count);
      min_count = std::min(min_count, count);
      missing_any |= missing;
      return true;
    });
    if (!in_range) {
      return (void)column_failed(shape_col_, "event has more arguments than its probe site");
    }
  }
  for (uint32_t i = 0; i < max_count; ++i) {
    ByteCursor& col = arg_col_[i];
    bool delta = arg_delta_mask_ & (1u << i);
    if (i < min_count && !(missing_any & (1u << i))) {
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
      if (!read) return (void)fail("argument column ends early");
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
    if (!col.ok()) return (void)fail("argument column ends early");
  }
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

// Moves the stack pointer, the last argument of sites with a frame
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

void ChunkDecoder::decode_process() {
  if (replay_) {
    has_pe_ = replay_pe_ < replay_process_.size();
    if (has_pe_) pe_next_ = std::move(replay_process_[replay_pe_++]);
    return;
  }
  while (process_left_ > 0) {
    --process_left_;
    ByteCursor& in = process_rows_;
    uint64_t delta = in.varint();
    uint8_t kind = in.u8();
    ByteCursor row = in.sub(in.varint());
    if (!in.ok()) {
      fail("process event runs past its section");
      return;
    }
    if (delta > header_.max_time_ns - pe_time_) {
      fail("process event time outside the chunk's time range");
      return;
    }
    pe_time_ += delta;
    if (kind < 1 || kind > 5) {
      ++skipped_;  // a kind this reader does not know: skipped by its length
      continue;
    }
    decode_process_row(kind, row);
    if (failed()) return;
    has_pe_ = true;
    return;
  }
  has_pe_ = false;
}

// One row of a known kind into pe_next_, every field set: the object is
// reused from row to row.
void ChunkDecoder::decode_process_row(uint8_t kind, ByteCursor row) {
  ProcessEvent& e = pe_next_;
  e.time_ns = pe_time_;
  e.kind = static_cast<ProcessEventKind>(kind);
  e.pid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
  e.tid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
  if (e.kind == ProcessEventKind::mmap) {
    e.parent_pid = e.parent_tid = 0;
    e.comm.clear();
    e.map_address = row.varint();
    e.map_length = row.varint();
    e.map_file_offset = row.varint();
    std::string_view build_id = row.bytes(row.varint_max(kMaxBuildId));
    std::string_view path = row.bytes(row.varint_max(kMaxMappedPath));
    if (!row.ok()) {
      fail("mmap event is malformed");
      return;
    }
    e.build_id.assign(build_id);
    e.path.assign(path);
    return;
  }
  e.parent_pid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
  e.parent_tid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
  std::string_view comm = row.bytes(row.varint_max(kMaxComm));
  if (!row.ok()) {
    fail("process event is malformed");
    return;
  }
  e.comm.assign(comm);
  e.map_address = e.map_length = e.map_file_offset = 0;
  e.build_id.clear();
  e.path.clear();
}

void ChunkDecoder::decode_lost() {
  if (replay_) {
    has_le_ = replay_le_ < replay_lost_.size();
    if (has_le_) le_next_ = replay_lost_[replay_le_++];
    return;
  }
  if (lost_left_ == 0) {
    has_le_ = false;
    return;
  }
  --lost_left_;
  ByteCursor& in = lost_rows_;
  uint64_t delta = in.varint();
  int64_t span = in.svarint();
  uint64_t cpu = in.varint_max(0xffffffffu);
  uint64_t site = in.varint_max(0xffffffffu);
  uint64_t count = in.varint();
  if (!in.ok()) {
    fail("lost record is malformed");
    return;
  }
  if (delta > header_.max_time_ns - le_time_) {
    fail("lost record time outside the chunk's time range");
    return;
  }
  le_time_ += delta;
  // time_end_ns = time_begin_ns + span, which must stay inside the range too.
  uint64_t magnitude = span >= 0 ? static_cast<uint64_t>(span) : 0 - static_cast<uint64_t>(span);
  bool inside = span >= 0 ? magnitude <= header_.max_time_ns - le_time_
                          : magnitude <= le_time_ - header_.min_time_ns;
  if (!inside) {
    fail("lost record time outside the chunk's time range");
    return;
  }
  uint64_t end = span >= 0 ? le_time_ + magnitude : le_time_ - magnitude;
  if (site != kNoSite && site >= site_arg_counts_->size()) {
    fail("lost record of site " + std::to_string(site) + ", which the probe table lacks");
    return;
  }
  le_next_ =
      LostEvent{le_time_, end, static_cast<uint32_t>(cpu), static_cast<uint32_t>(site), count};
  has_le_ = true;
}

void ChunkDecoder::pick_next() {
  // Ties: process before event before lost (record_rank).
  bool first = true;
  auto consider = [&](bool has, uint64_t time, RecordKind kind) {
    if (!has) return;
    if (first || time < next_time_) {
      next_time_ = time;
      next_kind_ = kind;
      first = false;
    }
  };
  consider(has_pe_, pe_next_.time_ns, RecordKind::process);
  consider(has_ev_, has_ev_ ? evs_[pos_].time_ns : 0, RecordKind::event);
  consider(has_le_, le_next_.time_begin_ns, RecordKind::lost);
  next_rank_ = record_rank(next_kind_);
}

void ChunkDecoder::advance_slow() {
  kind_ = next_kind_;
  switch (kind_) {
    case RecordKind::event:
      cur_event_ = &evs_[pos_];
      if (++pos_ == len_) {
        buf_ ^= 1;
        decode_batch();
      }
      break;
    case RecordKind::process:
      std::swap(pe_cur_, pe_next_);
      decode_process();
      break;
    case RecordKind::lost:
      le_cur_ = le_next_;
      decode_lost();
      break;
  }
  if (!has_ev_ && !has_pe_ && !has_le_) return;
  if (!has_pe_ && !has_le_) {  // the common case: events only
    next_time_ = evs_[pos_].time_ns;
    next_kind_ = RecordKind::event;
    next_rank_ = 1;
    return;
  }
  pick_next();
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
  events.reserve(header_.events);
  args.reserve(size_t{header_.events} * most_args);
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
  drained_size_ =
      replay_events_.capacity() * sizeof(PackedEvent) + replay_args_.capacity() * sizeof(uint64_t) +
      replay_process_.size() * sizeof(ProcessEvent) + replay_lost_.size() * sizeof(LostEvent) +
      replay_strings_.size() * sizeof(StringArg);
  if (replay_strings_.empty()) std::string().swap(payload_);
  // The same start as start() made: look-ahead of each kind, then the first.
  buf_ = 0;
  decode_batch();
  decode_process();
  decode_lost();
  if (has_next()) pick_next();
}

}  // namespace usdt::format
