// The mmap'ed ring buffer of one CPU's perf events (perf_event_open(2),
// "MMAP layout"): one metadata page (struct perf_event_mmap_page) followed by
// 2^n data pages. The kernel writes records at data_head; we read from
// data_tail and publish how far we got by storing data_tail. data_head is
// loaded with acquire (the records before it are then visible) and data_tail
// stored with release (the kernel may then overwrite what we read).
//
// A record may wrap around the end of the data area; such a record is copied
// into a scratch buffer so callers always see it contiguous (reading it in
// place reads past the area's end into unrelated memory).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/result.h"

namespace usdt::record {

class RingBuffer {
 public:
  // Maps 1 + data_pages pages of fd; data_pages must be a power of two.
  static Result<RingBuffer> map(int fd, size_t data_pages);
  RingBuffer(RingBuffer&& other) noexcept;
  RingBuffer& operator=(RingBuffer&& other) noexcept;
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer();

  int fd() const { return fd_; }
  size_t data_size() const { return data_size_; }

  // Snapshots data_head; records up to it are then returned by next().
  void begin_read();
  // The next record, contiguous, or nullptr when the snapshot is consumed.
  // A record with a bad size (the buffer is corrupt) ends the read: the rest
  // up to the snapshot is skipped and counted in corrupt_skips().
  // Inline for the usual record, which lies whole before the end of the data
  // area: the drain loop calls it once per record.
  const perf_event_header* next() {
    if (tail_ >= head_) return nullptr;
    const size_t offset = static_cast<size_t>(tail_ & (data_size_ - 1));
    if (offset + sizeof(perf_event_header) <= data_size_) {
      const auto* record = reinterpret_cast<const perf_event_header*>(data_ + offset);
      const uint16_t size = record->size;
      if (size >= sizeof(perf_event_header) && size <= head_ - tail_ &&
          offset + size <= data_size_) {
        tail_ += size;
        return record;
      }
    }
    return next_slow();
  }
  // Goes back to where begin_read() started, keeping its snapshot: the
  // records are read again (a first pass that only looks at some of them).
  // A corrupt record found on the way is counted once, by the second read.
  void rewind() {
    tail_ = read_start_;
    corrupt_skips_ = corrupt_at_start_;
  }
  // Ends the snapshot before last, the record next() just returned: it and
  // the records after it stay in the buffer for the next begin_read().
  void cut_before(const perf_event_header* last) { head_ = tail_ - last->size; }
  // Hands everything read so far back to the kernel; reading may go on
  // (records returned before are then no longer valid).
  void end_read();

  uint64_t corrupt_skips() const { return corrupt_skips_; }

 private:
  RingBuffer(int fd, void* base, size_t mapped, size_t data_size)
      : fd_(fd), base_(base), mapped_(mapped), data_size_(data_size) {}
  void reset();
  // next() for a record that wraps around the end, or a corrupt one.
  const perf_event_header* next_slow();

  int fd_ = -1;  // not owned: the PerfEvent owns it
  void* base_ = nullptr;
  size_t mapped_ = 0;
  size_t data_size_ = 0;
  // The data area, found at begin_read(): data_offset shares a cache line
  // with data_head, which the kernel writes on every event, so reading it
  // per record cost a cache miss per record.
  const uint8_t* data_ = nullptr;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
  uint64_t read_start_ = 0;
  uint64_t corrupt_at_start_ = 0;
  uint64_t corrupt_skips_ = 0;
  std::vector<uint8_t> scratch_;
};

}  // namespace usdt::record
