#include "record/kernel/ring_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <utility>

namespace usdt::record {
namespace {

perf_event_mmap_page* meta(void* base) { return static_cast<perf_event_mmap_page*>(base); }

}  // namespace

Result<RingBuffer> RingBuffer::map(int fd, size_t data_pages) {
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0) {
    return Error("ring buffer pages must be a power of two, got " + std::to_string(data_pages));
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t mapped = (data_pages + 1) * page;
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    Error err =
        errno_error("cannot map a " + std::to_string(data_pages) + "-page perf ring buffer");
    if (err.errno_value() == EPERM || err.errno_value() == ENOMEM) {
      return Error(err.message() +
                   "\nhint: use fewer --buffer-pages or raise kernel.perf_event_mlock_kb / "
                   "RLIMIT_MEMLOCK");
    }
    return err;
  }
  return RingBuffer(fd, base, mapped, data_pages * page);
}

RingBuffer::RingBuffer(RingBuffer&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      base_(std::exchange(other.base_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)),
      data_size_(other.data_size_),
      data_(std::exchange(other.data_, nullptr)),
      head_(other.head_),
      tail_(other.tail_),
      corrupt_skips_(other.corrupt_skips_),
      scratch_(std::move(other.scratch_)) {}

RingBuffer& RingBuffer::operator=(RingBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    base_ = std::exchange(other.base_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
    data_size_ = other.data_size_;
    data_ = std::exchange(other.data_, nullptr);
    head_ = other.head_;
    tail_ = other.tail_;
    corrupt_skips_ = other.corrupt_skips_;
    scratch_ = std::move(other.scratch_);
  }
  return *this;
}

RingBuffer::~RingBuffer() { reset(); }

void RingBuffer::reset() {
  if (base_ != nullptr) munmap(base_, mapped_);
  base_ = nullptr;
}

void RingBuffer::begin_read() {
  perf_event_mmap_page* m = meta(base_);
  head_ = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
  tail_ = m->data_tail;  // only we write it
  read_start_ = tail_;
  corrupt_at_start_ = corrupt_skips_;
  data_ = static_cast<const uint8_t*>(base_) + m->data_offset;
}

const perf_event_header* RingBuffer::next_slow() {
  if (tail_ >= head_) return nullptr;
  const uint8_t* data = data_;
  size_t available = static_cast<size_t>(head_ - tail_);
  size_t offset = static_cast<size_t>(tail_ & (data_size_ - 1));

  // The header itself (8 bytes, records are 8-aligned) never wraps, but copy
  // it safely anyway.
  perf_event_header header;
  if (offset + sizeof header <= data_size_) {
    std::memcpy(&header, data + offset, sizeof header);
  } else {
    size_t first = data_size_ - offset;
    std::memcpy(&header, data + offset, first);
    std::memcpy(reinterpret_cast<uint8_t*>(&header) + first, data, sizeof header - first);
  }
  if (header.size < sizeof header || header.size > available) {
    ++corrupt_skips_;
    tail_ = head_;
    return nullptr;
  }
  const perf_event_header* record;
  if (offset + header.size <= data_size_) {
    record = reinterpret_cast<const perf_event_header*>(data + offset);
  } else {
    size_t first = data_size_ - offset;
    scratch_.resize(header.size);
    std::memcpy(scratch_.data(), data + offset, first);
    std::memcpy(scratch_.data() + first, data, header.size - first);
    record = reinterpret_cast<const perf_event_header*>(scratch_.data());
  }
  tail_ += header.size;
  return record;
}

void RingBuffer::end_read() { __atomic_store_n(&meta(base_)->data_tail, tail_, __ATOMIC_RELEASE); }

}  // namespace usdt::record
