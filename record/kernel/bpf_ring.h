// The reading side of a BPF ring buffer (BPF_MAP_TYPE_RINGBUF), mapped from
// the map's descriptor (kernel/bpf/ringbuf.c, "mmap-ed ring"): a page with
// the consumer position (ours to write), a page with the producer position,
// then the data area mapped twice in a row, so that a record that wraps
// around its end is still contiguous. Each record starts with an 8-byte
// header: its length, with a busy bit while its producer is still writing
// it and a discard bit for a record given back; records are 8-byte aligned.
//
// The producer position is loaded with acquire, the consumer position
// stored with release (the kernel may then reuse what was read). Reading
// stops at a busy record: the ones after it wait for the next read, in
// order. A length that does not fit in the ring (a corrupt ring) ends the
// read and is counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/result.h"

namespace usdt::record {

// One record's bytes, valid until end_read().
struct BpfRingRecord {
  const uint8_t* data = nullptr;
  uint32_t size = 0;
};

class BpfRing {
 public:
  // Maps the ring of map_fd, whose data area is data_bytes (a power of two).
  static Result<BpfRing> map(int map_fd, size_t data_bytes);
  BpfRing(BpfRing&& other) noexcept;
  BpfRing& operator=(BpfRing&& other) noexcept;
  BpfRing(const BpfRing&) = delete;
  BpfRing& operator=(const BpfRing&) = delete;
  ~BpfRing();

  // Snapshots the producer position; next() returns records up to it.
  void begin_read();
  // The next committed record, or an empty one (data nullptr) at the end of
  // the snapshot or at a record still being written.
  BpfRingRecord next() {
    while (tail_ < head_) {
      const uint8_t* at = data_ + (tail_ & mask_);
      const uint32_t header =
          __atomic_load_n(reinterpret_cast<const uint32_t*>(at), __ATOMIC_ACQUIRE);
      if (header & kBusyBit) return {};
      const uint32_t length = header & ~(kBusyBit | kDiscardBit);
      const uint64_t step = (uint64_t{length} + kHeaderBytes + 7) & ~uint64_t{7};
      if (step > head_ - tail_) {
        ++corrupt_;
        tail_ = head_;
        return {};
      }
      last_tail_ = tail_;
      tail_ += step;
      if (header & kDiscardBit) continue;
      return {at + kHeaderBytes, length};
    }
    return {};
  }
  // Leaves the record next() returned last for the next read (before any
  // end_read() after it).
  void unread_last() { tail_ = last_tail_; }
  // Hands what was read back to the kernel.
  void end_read();
  // Unread bytes (the producer's position minus ours) right now.
  uint64_t unread() const;

  uint64_t corrupt_skips() const { return corrupt_; }

 private:
  static constexpr uint32_t kBusyBit = 1u << 31;
  static constexpr uint32_t kDiscardBit = 1u << 30;
  static constexpr uint64_t kHeaderBytes = 8;

  BpfRing() = default;
  void reset();

  void* consumer_page_ = nullptr;
  void* producer_pages_ = nullptr;
  size_t producer_mapped_ = 0;
  size_t page_ = 0;
  const uint8_t* data_ = nullptr;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
  uint64_t last_tail_ = 0;
  uint64_t corrupt_ = 0;
};

}  // namespace usdt::record
