#include "formats/chunk_decoder.h"

#include <algorithm>
#include <string>

namespace usdt::format {

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
  uint64_t sizes[kEventColumns];
  for (auto& size : sizes) size = s.varint();
  ByteCursor* cols[kEventColumns] = {&time_col_, &site_col_, &thread_col_, &cpu_col_, &shape_col_};
  for (int i = 0; i < kMaxArgs; ++i) cols[kArg0Column + i] = &arg_col_[i];
  for (int i = 0; i < kEventColumns; ++i) *cols[i] = s.sub(sizes[i]);
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

}  // namespace usdt::format
