// The row lists of a chunk's payload (formats/FORMAT.md, "Process events
// section" and "Lost events section"), decoded one record ahead of the merge.
#include <string>

#include "formats/chunk_decoder.h"

namespace usdt::format {

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
    if (kind < 1 || kind > 6) {
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
  e.ns_pid = e.ns_tid = 0;
  e.pid_namespace = 0;
  if (e.kind == ProcessEventKind::pid_namespace) {
    e.parent_pid = e.parent_tid = 0;
    e.comm.clear();
    e.map_address = e.map_length = e.map_file_offset = 0;
    e.build_id.clear();
    e.path.clear();
    e.ns_pid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
    e.ns_tid = static_cast<uint32_t>(row.varint_max(0xffffffffu));
    e.pid_namespace = row.varint();
    if (!row.ok()) fail("pid namespace event is malformed");
    return;
  }
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

}  // namespace usdt::format
