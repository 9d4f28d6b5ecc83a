// A memfd laid out like a perf ring buffer mmap: a metadata page, then one
// data page, written the way the kernel writes records (wrapping at the end).
#pragma once

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

struct FakePerfMmap {
  int fd = -1;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t data_size = page;  // one data page
  uint8_t* base = nullptr;
  uint64_t head = 0;

  FakePerfMmap() {
    fd = memfd_create("fake_perf", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(2 * page)) == 0);
    base =
        static_cast<uint8_t*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    REQUIRE(base != MAP_FAILED);
    meta()->data_offset = page;
    meta()->data_size = data_size;
  }
  ~FakePerfMmap() {
    munmap(base, 2 * page);
    close(fd);
  }
  FakePerfMmap(const FakePerfMmap&) = delete;
  FakePerfMmap& operator=(const FakePerfMmap&) = delete;

  perf_event_mmap_page* meta() { return reinterpret_cast<perf_event_mmap_page*>(base); }
  // Appends a whole record (its header included) and publishes it.
  void write(const std::vector<uint8_t>& record) {
    for (size_t i = 0; i < record.size(); ++i) base[page + ((head + i) % data_size)] = record[i];
    head += record.size();
    meta()->data_head = head;
  }
  // Writes a sample record of size bytes (multiple of 8) filled with fill.
  void write_record(uint16_t size, uint8_t fill) {
    std::vector<uint8_t> r(size, fill);
    perf_event_header h{PERF_RECORD_SAMPLE, 0, size};
    std::memcpy(r.data(), &h, sizeof h);
    write(r);
  }
};
