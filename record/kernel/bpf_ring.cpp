#include "record/kernel/bpf_ring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <utility>

namespace usdt::record {
namespace {

volatile uint64_t* position(void* page) { return static_cast<volatile uint64_t*>(page); }

}  // namespace

Result<BpfRing> BpfRing::map(int map_fd, size_t data_bytes) {
  if (data_bytes == 0 || (data_bytes & (data_bytes - 1)) != 0) {
    return Error("a BPF ring's size must be a power of two, got " + std::to_string(data_bytes));
  }
  BpfRing ring;
  ring.page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* consumer = mmap(nullptr, ring.page_, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
  if (consumer == MAP_FAILED) return errno_error("cannot map the BPF ring's consumer page");
  ring.consumer_page_ = consumer;
  // The producer page, then the data area twice.
  ring.producer_mapped_ = ring.page_ + 2 * data_bytes;
  void* producer = mmap(nullptr, ring.producer_mapped_, PROT_READ, MAP_SHARED, map_fd,
                        static_cast<off_t>(ring.page_));
  if (producer == MAP_FAILED) return errno_error("cannot map the BPF ring's data");
  ring.producer_pages_ = producer;
  ring.data_ = static_cast<const uint8_t*>(producer) + ring.page_;
  ring.mask_ = data_bytes - 1;
  ring.head_ = ring.tail_ = __atomic_load_n(position(ring.consumer_page_), __ATOMIC_ACQUIRE);
  return ring;
}

BpfRing::BpfRing(BpfRing&& other) noexcept { *this = std::move(other); }

BpfRing& BpfRing::operator=(BpfRing&& other) noexcept {
  if (this == &other) return *this;
  reset();
  consumer_page_ = std::exchange(other.consumer_page_, nullptr);
  producer_pages_ = std::exchange(other.producer_pages_, nullptr);
  producer_mapped_ = std::exchange(other.producer_mapped_, 0);
  page_ = other.page_;
  data_ = std::exchange(other.data_, nullptr);
  mask_ = other.mask_;
  head_ = other.head_;
  tail_ = other.tail_;
  corrupt_ = other.corrupt_;
  return *this;
}

BpfRing::~BpfRing() { reset(); }

void BpfRing::reset() {
  if (consumer_page_ != nullptr) munmap(consumer_page_, page_);
  if (producer_pages_ != nullptr) munmap(producer_pages_, producer_mapped_);
  consumer_page_ = producer_pages_ = nullptr;
}

void BpfRing::begin_read() { head_ = __atomic_load_n(position(producer_pages_), __ATOMIC_ACQUIRE); }

void BpfRing::end_read() { __atomic_store_n(position(consumer_page_), tail_, __ATOMIC_RELEASE); }

uint64_t BpfRing::unread() const {
  return __atomic_load_n(position(producer_pages_), __ATOMIC_ACQUIRE) -
         __atomic_load_n(position(consumer_page_), __ATOMIC_ACQUIRE);
}

}  // namespace usdt::record
