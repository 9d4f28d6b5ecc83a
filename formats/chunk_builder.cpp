#include "formats/chunk_builder.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "formats/byte_cursor.h"

namespace usdt::format {

namespace {
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
    if (e.kind == ProcessEventKind::pid_namespace) {
      r.varint(e.ns_pid);
      r.varint(e.ns_tid);
      r.varint(e.pid_namespace);
    } else if (e.kind == ProcessEventKind::mmap) {
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

}  // namespace usdt::format