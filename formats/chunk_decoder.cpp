#include "formats/chunk_decoder.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "formats/read_budget.h"

namespace usdt::format {

namespace {

// Fewest bytes of a process event row (time delta, kind, row size) and of
// a lost record (time delta, span, CPU, site, count).
constexpr uint64_t kMinProcessRow = 3;
constexpr uint64_t kMinLostRow = 5;
// What the decoder keeps for each site of the chunk's site table: its id,
// argument count, string mask, frame slot and previous argument values.
constexpr uint64_t kLocalSiteBytes = 4 + 1 + 2 + 1 + kMaxArgs * sizeof(uint64_t);

}  // namespace

ChunkDecoder::ChunkDecoder(std::string payload, const std::vector<uint8_t>* site_arg_counts,
                           const std::vector<uint16_t>* site_string_masks,
                           const std::vector<uint8_t>* site_frames)
    : payload_(std::move(payload)),
      site_arg_counts_(site_arg_counts),
      site_string_masks_(site_string_masks),
      site_frames_(site_frames) {}

bool ChunkDecoder::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  has_ev_ = has_pe_ = has_le_ = false;
  return false;
}

bool ChunkDecoder::hold(uint64_t bytes) {
  if (bytes > max_held_ - std::min(held_, max_held_)) {
    peak_held_ = std::max(peak_held_, bytes > UINT64_MAX - held_ ? UINT64_MAX : held_ + bytes);
    over_budget_ = true;
    return fail("decoding it " + over_budget_text(peak_held_, nullptr));
  }
  held_ += bytes;
  peak_held_ = std::max(peak_held_, held_);
  return true;
}

bool ChunkDecoder::start(const ChunkHeader& expected, uint64_t max_held, uint64_t transient) {
  max_held_ = max_held;
  if (!hold(transient + sizeof(ChunkDecoder) + payload_.size())) return false;
  ByteCursor in(payload_);
  header_ = decode_chunk_header(in);
  if (!in.ok()) return fail("payload shorter than its header");
  if (!(header_ == expected)) return fail("chunk header does not match its checksummed copy");
  if (header_.min_time_ns > header_.max_time_ns && header_.records() > 0) {
    return fail("chunk time range is inverted");
  }
  if (header_.records() > kMaxChunkRecords) {
    return fail("chunk header counts " + std::to_string(header_.records()) +
                " records, more than the limit of " + std::to_string(kMaxChunkRecords));
  }
  if (!parse_sections(in)) return false;
  if (!hold(records_reserve())) return false;
  held_ -= transient;  // the caller's, until the payload is parsed
  ev_time_ = pe_time_ = le_time_ = header_.min_time_ns;
  decode_args_ = want_args_ || chunk_frames_;
  decode_batch();
  decode_process();
  decode_lost();
  pick_next();
  return !failed();
}

bool ChunkDecoder::parse_sections(ByteCursor in) {
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
        if (process_left_ > section.remaining() / kMinProcessRow) {
          return fail("process events run past their section");
        }
        process_bytes_ = section.remaining();
        break;
      case SectionKind::lost:
        lost_left_ = section.varint();
        lost_rows_ = section;
        if (!section.ok() || lost_left_ != header_.lost_records) {
          return fail("lost record count differs from the chunk header");
        }
        if (lost_left_ > section.remaining() / kMinLostRow) {
          return fail("lost records run past their section");
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
  return true;
}

bool ChunkDecoder::parse_events(ByteCursor s) {
  events_left_ = s.varint();
  if (!s.ok() || events_left_ != header_.events) {
    return fail("event count differs from the chunk header");
  }
  // Every event takes at least one byte in each of the first five columns,
  // so no table can be larger than the events or the section itself.
  uint64_t n_sites = s.varint_max(std::min<uint64_t>(s.remaining(), events_left_));
  if (!s.ok()) return fail("events section's site table is larger than its events");
  if (!hold(n_sites * kLocalSiteBytes)) return false;
  sites_.clear();
  site_args_.clear();
  site_strings_.clear();
  chunk_strings_ = 0;
  site_frame_.clear();
  chunk_frames_ = false;
  for (uint64_t i = 0; i < n_sites && s.ok(); ++i) {
    if (!add_local_site(s.varint())) return false;
  }
  if (chunk_strings_ != 0) {
    if (!hold(2 * sizeof(StringArg) * kBatch * kMaxArgs)) return false;
    for (auto& v : strings_of_) v.resize(size_t{kBatch} * kMaxArgs);
  }
  uint64_t n_threads = s.varint_max(std::min<uint64_t>(s.remaining() / 2, events_left_));
  if (!s.ok()) return fail("events section's thread table is larger than its events");
  if (!hold(n_threads * sizeof(threads_[0]))) return false;
  threads_.clear();
  threads_.reserve(n_threads);
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
  for (int i = kTimeColumn; i <= kShapeColumn; ++i) {
    if (sizes[i] < events_left_) return fail("event columns are shorter than their events");
  }
  for (int i = 0; i < kMaxArgs; ++i) arg_bytes_ += sizes[kArg0Column + i];
  prev_.assign(sites_.size() * kMaxArgs, 0);
  return true;
}

bool ChunkDecoder::add_local_site(uint64_t id) {
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
  if (!hold((u + 1) * sizeof(DecodedStack))) return false;
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
    // Twice the frames: the list grows by doubling.
    if (!hold(2 * depth * sizeof(uint64_t))) return false;
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
  return parse_stack_refs(s, u);
}

bool ChunkDecoder::parse_stack_refs(ByteCursor& s, uint64_t u) {
  uint64_t n = s.varint();
  if (!s.ok() || n != header_.events)
    return fail("stack reference count differs from the chunk header");
  if (n > s.remaining()) return fail("stack references run past the stacks section");
  if (!hold(n * sizeof(uint32_t))) return false;
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
  return true;
}

uint64_t ChunkDecoder::records_reserve() const {
  // What drain() keeps (reserved exactly), so that a drained decoder holds
  // no more than a streaming one is charged: each event packed with room for
  // its site's most arguments, a StringArg (twice: a deque's blocks) for
  // each present string (each takes at least a byte of the argument
  // columns), the rows with their strings (at most the bytes of their
  // section).
  uint8_t most_args = 0;
  for (uint8_t a : site_args_) most_args = std::max(most_args, a);
  const uint64_t events = header_.events;
  const uint64_t strings = chunk_strings_ != 0 ? std::min(arg_bytes_, events * kMaxArgs) : 0;
  return events * (sizeof(PackedEvent) + most_args * sizeof(uint64_t)) +
         strings * 2 * sizeof(StringArg) + uint64_t{header_.process_events} * sizeof(ProcessEvent) +
         process_bytes_ + uint64_t{header_.lost_records} * sizeof(LostEvent);
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
