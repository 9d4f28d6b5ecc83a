#include "formats/chunk_codec.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

using namespace usdt::format;

namespace {

std::vector<uint8_t> kArgCounts = {2, 0, 12};

Event ev(uint64_t t, uint32_t site, uint8_t n, uint64_t a0 = 0, uint64_t a1 = 0) {
  Event e;
  e.time_ns = t;
  e.site_id = site;
  e.pid = 3;
  e.tid = 4;
  e.cpu = 1;
  e.arg_count = n;
  e.args[0] = a0;
  e.args[1] = a1;
  return e;
}

std::vector<std::string> drain(ChunkDecoder& d) {
  std::vector<std::string> out;
  char buf[64];
  while (d.has_next()) {
    d.advance();
    switch (d.kind()) {
      case RecordKind::event:
        snprintf(buf, sizeof buf, "e%llu:%llu", (unsigned long long)d.event().time_ns,
                 (unsigned long long)d.event().args[0]);
        break;
      case RecordKind::process:
        snprintf(buf, sizeof buf, "p%llu", (unsigned long long)d.process().time_ns);
        break;
      case RecordKind::lost:
        snprintf(buf, sizeof buf, "l%llu", (unsigned long long)d.lost().time_begin_ns);
        break;
    }
    out.emplace_back(buf);
  }
  return out;
}

}  // namespace

TEST_CASE("a chunk sorts its records and describes them in its header", "[chunk_codec]") {
  ChunkBuilder b;
  b.add(ev(300, 0, 2, 7, 1));
  b.add(ev(100, 2, 1, 5));
  b.add(ProcessEvent{200, ProcessEventKind::comm, 3, 4, 0, 0, "x"});
  b.add(LostEvent{50, 300, 1, kNoSite, 2});
  b.add(ev(300, 1, 0));  // equal time: after the first, in append order
  CHECK(b.records() == 5);
  std::string payload;
  ChunkHeader h = b.encode(payload);
  CHECK(b.empty());
  CHECK(h.min_time_ns == 50);
  CHECK(h.max_time_ns == 300);
  CHECK(h.events == 3);
  CHECK(h.process_events == 1);
  CHECK(h.lost_records == 1);
  CHECK(h.site_bloom == 0b111);
  ChunkDecoder d(payload, &kArgCounts);
  REQUIRE(d.start(h));
  CHECK(drain(d) == std::vector<std::string>{"l50", "e100:5", "p200", "e300:7", "e300:0"});
  CHECK_FALSE(d.failed());
}

TEST_CASE("a chunk made of sorted runs (per-CPU batches) comes out in time order",
          "[chunk_codec]") {
  // 1, 2, 3, 5 and 70 interleaved batches, each sorted in itself, with equal
  // times across batches: the output is sorted by time, then append order.
  for (int runs : {1, 2, 3, 5, 70}) {
    ChunkBuilder b;
    std::vector<std::pair<uint64_t, uint64_t>> expected;  // (time, append index)
    uint64_t index = 0;
    for (int r = 0; r < runs; ++r) {
      for (uint64_t k = 0; k < 40; ++k) {
        uint64_t t = 1000 + k * 10 + static_cast<uint64_t>(r % 3) * 5;
        b.add(ev(t, 0, 2, index, 0));
        expected.emplace_back(t, index++);
      }
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](auto& a, auto& c) { return a.first < c.first; });
    std::vector<std::string> want;
    for (auto& [t, i] : expected) {
      std::string line(1, 'e');  // appends, not "e" + ...: GCC 12's false -Wrestrict
      line.append(std::to_string(t)).append(1, ':').append(std::to_string(i));
      want.push_back(line);
    }
    std::string payload;
    ChunkHeader h = b.encode(payload);
    ChunkDecoder d(payload, &kArgCounts);
    REQUIRE(d.start(h));
    INFO("runs " << runs);
    CHECK(drain(d) == want);
  }
}

TEST_CASE("the decoder refuses a header that differs from its copy", "[chunk_codec]") {
  ChunkBuilder b;
  b.add(ev(100, 0, 2, 1, 2));
  std::string payload;
  ChunkHeader h = b.encode(payload);
  ChunkHeader other = h;
  other.max_time_ns += 1;
  ChunkDecoder d(payload, &kArgCounts);
  CHECK_FALSE(d.start(other));
  CHECK(d.error() == "chunk header does not match its checksummed copy");
}

TEST_CASE("the decoder checks sites and argument counts against the probe table", "[chunk_codec]") {
  ChunkBuilder b;
  b.add(ev(100, 2, 12, 1, 2));
  std::string payload;
  ChunkHeader h = b.encode(payload);
  std::vector<uint8_t> fewer_sites = {2, 0};
  ChunkDecoder d1(payload, &fewer_sites);
  CHECK_FALSE(d1.start(h));
  CHECK(d1.error() == "event of site 2, which the probe table lacks");
  std::vector<uint8_t> fewer_args = {2, 0, 3};
  ChunkDecoder d2(payload, &fewer_args);
  CHECK_FALSE(d2.start(h));  // the first batch is decoded by start()
  CHECK(d2.error() == "event has more arguments than its probe site");
}

TEST_CASE("unknown sections and process kinds are skipped by length", "[chunk_codec]") {
  ChunkBuilder b;
  b.add(ev(100, 0, 2, 1, 2));
  b.add(ProcessEvent{150, ProcessEventKind::exit, 3, 4, 0, 0, ""});
  std::string payload;
  ChunkHeader h = b.encode(payload);
  // A section of kind 9 from a newer writer.
  payload += std::string("\x09\x03xyz", 5);
  ChunkDecoder d(payload, &kArgCounts);
  REQUIRE(d.start(h));
  CHECK(drain(d) == std::vector<std::string>{"e100:1", "p150"});
  CHECK(d.records_skipped() == 1);

  // A process event of kind 77: change the kind byte of the only row.
  std::string p2 = payload.substr(0, payload.size() - 5);
  size_t at = p2.rfind(std::string("\x02", 1));  // the process section's kind byte
  REQUIRE(at != std::string::npos);
  // section: kind, size, count, then the row: time delta, kind
  p2[at + 4] = 77;
  ChunkDecoder d3(p2, &kArgCounts);
  REQUIRE(d3.start(h));
  CHECK(drain(d3) == std::vector<std::string>{"e100:1"});
  CHECK(d3.records_skipped() == 1);
}

TEST_CASE("argument columns pick deltas for counters and values for the rest", "[chunk_codec]") {
  ChunkBuilder b;
  for (uint64_t i = 0; i < 1000; ++i) b.add(ev(1000 + i, 0, 2, 1000000000 + i, (i * 7919) % 100));
  std::string payload;
  ChunkHeader h = b.encode(payload);
  // header (56) + section frame + dictionaries + 1000 x (time, site, thread,
  // cpu, shape, delta 1, small value): one byte each.
  CHECK(payload.size() < 56 + 40 + 7 * 1000);
  ChunkDecoder d(payload, &kArgCounts);
  REQUIRE(d.start(h));
  uint64_t i = 0;
  while (d.has_next()) {
    d.advance();
    REQUIRE(d.event().args[0] == 1000000000 + i);
    REQUIRE(d.event().args[1] == (i * 7919) % 100);
    ++i;
  }
  CHECK(i == 1000);
}
