// The ring buffer reader on a memfd laid out like a perf mmap: a metadata
// page, then the data pages, with records that wrap around the end.
#include "record/kernel/ring_buffer.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "tests/unit/support/fake_perf_mmap.h"

using namespace usdt::record;

TEST_CASE("records are read in order, also across the wrap", "[ring_buffer]") {
  FakePerfMmap fake;
  auto rb = RingBuffer::map(fake.fd, 1);
  REQUIRE(rb.ok());
  uint8_t fill = 0;
  uint64_t read_total = 0;
  // Many rounds of odd-sized records: every position of the wrap is hit.
  for (int round = 0; round < 200; ++round) {
    std::vector<std::pair<uint16_t, uint8_t>> written;
    for (int k = 0; k < 5; ++k) {
      uint16_t size = static_cast<uint16_t>(8 * (2 + (round * 7 + k * 3) % 40));
      if (fake.head + size - fake.meta()->data_tail > fake.data_size) break;
      fake.write_record(size, ++fill);
      written.emplace_back(size, fill);
    }
    rb->begin_read();
    for (auto [size, f] : written) {
      const perf_event_header* h = rb->next();
      REQUIRE(h != nullptr);
      REQUIRE(h->size == size);
      const uint8_t* p = reinterpret_cast<const uint8_t*>(h);
      for (size_t i = sizeof(perf_event_header); i < size; ++i) REQUIRE(p[i] == f);
      read_total += size;
    }
    CHECK(rb->next() == nullptr);
    rb->end_read();
    CHECK(fake.meta()->data_tail == read_total);
  }
  CHECK(read_total > 10 * fake.data_size);
}

TEST_CASE("a record with a bad size ends the read and is counted", "[ring_buffer]") {
  FakePerfMmap fake;
  auto rb = RingBuffer::map(fake.fd, 1);
  REQUIRE(rb.ok());
  fake.write_record(16, 1);
  // A header claiming more than what was written.
  perf_event_header bad{PERF_RECORD_SAMPLE, 0, 4000};
  std::memcpy(fake.base + fake.page + fake.head, &bad, sizeof bad);
  fake.head += 8;
  fake.meta()->data_head = fake.head;
  rb->begin_read();
  REQUIRE(rb->next() != nullptr);
  CHECK(rb->next() == nullptr);
  rb->end_read();
  CHECK(rb->corrupt_skips() == 1);
  CHECK(fake.meta()->data_tail == fake.head);
}

TEST_CASE("rewind reads the same snapshot again, counting a bad record once",
          "[ring_buffer]") {
  FakePerfMmap fake;
  auto rb = RingBuffer::map(fake.fd, 1);
  REQUIRE(rb.ok());
  fake.write_record(16, 1);
  fake.write_record(24, 2);
  perf_event_header bad{PERF_RECORD_SAMPLE, 0, 4000};
  std::memcpy(fake.base + fake.page + fake.head, &bad, sizeof bad);
  fake.head += 8;
  fake.meta()->data_head = fake.head;
  rb->begin_read();
  REQUIRE(rb->next() != nullptr);
  REQUIRE(rb->next() != nullptr);
  CHECK(rb->next() == nullptr);
  rb->rewind();
  fake.write_record(32, 3);  // after the snapshot: not read until the next begin_read
  const perf_event_header* first = rb->next();
  REQUIRE(first != nullptr);
  CHECK(first->size == 16);
  REQUIRE(rb->next() != nullptr);
  CHECK(rb->next() == nullptr);
  rb->end_read();
  CHECK(rb->corrupt_skips() == 1);
}

TEST_CASE("cut_before leaves a record and those after it for the next read", "[ring_buffer]") {
  FakePerfMmap fake;
  auto rb = RingBuffer::map(fake.fd, 1);
  REQUIRE(rb.ok());
  fake.write_record(16, 1);
  fake.write_record(24, 2);
  fake.write_record(32, 3);
  rb->begin_read();
  REQUIRE(rb->next() != nullptr);
  const perf_event_header* second = rb->next();
  REQUIRE(second != nullptr);
  rb->cut_before(second);  // the drainer's side band: a record newer than the samples read
  CHECK(rb->next() == nullptr);
  rb->rewind();
  REQUIRE(rb->next() != nullptr);
  CHECK(rb->next() == nullptr);
  rb->end_read();
  CHECK(fake.meta()->data_tail == 16);
  rb->begin_read();
  const perf_event_header* again = rb->next();
  REQUIRE(again != nullptr);
  CHECK(again->size == 24);
  REQUIRE(rb->next() != nullptr);
  CHECK(rb->next() == nullptr);
}

TEST_CASE("the page count must be a power of two", "[ring_buffer]") {
  FakePerfMmap fake;
  CHECK_FALSE(RingBuffer::map(fake.fd, 3).ok());
  CHECK_FALSE(RingBuffer::map(fake.fd, 0).ok());
}
