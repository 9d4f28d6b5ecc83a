#include "formats/chunk_codec.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

#include "formats/file_layout.h"

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

TEST_CASE("one builder encodes chunks of growing size and argument count exactly",
          "[chunk_codec]") {
  // The columns grow inside encode(), and keep their room across chunks: a
  // small chunk, then one of 30,000 events whose arguments take every width
  // of varint (up to 10 bytes) on sites of 0, 2 and 12 arguments, some
  // missing, then a small one again.
  ChunkBuilder b;
  std::string payload;
  for (uint64_t n : {uint64_t{3}, uint64_t{30000}, uint64_t{5}}) {
    std::vector<Event> written;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t site = static_cast<uint32_t>(i % 3);
      Event e = ev(5000 + i * 3, site, kArgCounts[site]);
      e.pid = static_cast<uint32_t>(100 + i % 7);
      e.tid = e.pid + static_cast<uint32_t>(i % 2);
      e.cpu = static_cast<uint32_t>(i % 5);
      for (int a = 0; a < e.arg_count; ++a) {
        e.args[a] = (i * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(a)) >> (7 * ((i + a) % 10));
      }
      if (site == 2 && i % 4 == 0) {
        e.missing_mask = 0b100000000010;
        e.args[1] = e.args[11] = 0;
      }
      written.push_back(e);
      b.add(e);
    }
    ChunkHeader h = b.encode(payload);
    ChunkDecoder d(payload, &kArgCounts);
    REQUIRE(d.start(h));
    size_t k = 0;
    while (d.has_next()) {
      d.advance();
      REQUIRE(d.kind() == RecordKind::event);
      REQUIRE(k < written.size());
      const Event& w = written[k++];
      const Event& r = d.event();
      REQUIRE(r.time_ns == w.time_ns);
      REQUIRE(r.site_id == w.site_id);
      REQUIRE(r.pid == w.pid);
      REQUIRE(r.tid == w.tid);
      REQUIRE(r.cpu == w.cpu);
      REQUIRE(r.arg_count == w.arg_count);
      REQUIRE(r.missing_mask == w.missing_mask);
      for (int a = 0; a < w.arg_count; ++a) REQUIRE(r.args[a] == w.args[a]);
    }
    CHECK(d.error().empty());
    CHECK(k == n);
  }
}

namespace {

// "s<i>" (built by appending: GCC 12 warns wrongly on "s" + std::string).
std::string s_text(int i) {
  std::string s = "s";
  s += std::to_string(i);
  return s;
}

// Site 0: a number then a string; site 1: none; site 2: strings at 0 and 11.
std::vector<uint16_t> kStringMasks = {0b10, 0, 0b100000000001};

// A chunk of 200 events of site 0 and 2 whose strings are "s<i>" (site 0)
// and "" / "long..." (site 2); returns the strings section's size.
std::string strings_chunk(ChunkHeader& h, size_t& strings_bytes) {
  ChunkBuilder b;
  std::vector<std::string> texts, long_texts;
  std::vector<StringArg> args(400);
  for (int i = 0; i < 200; ++i) {
    texts.push_back(s_text(i));
    long_texts.push_back(texts.back());
    long_texts.back().append("long");
  }
  for (int i = 0; i < 200; ++i) {
    Event e = ev(1000 - static_cast<uint64_t>(i), i % 2 ? 0 : 2, i % 2 ? 2 : 12, 7);
    if (i % 2) {
      args[i] = StringArg{texts[i], i % 3 == 0};
      e.args[1] = reinterpret_cast<uint64_t>(&args[i]);
      e.string_mask = 0b10;
    } else {
      args[i] = StringArg{""};
      args[i + 200] = StringArg{long_texts[i]};
      e.args[0] = reinterpret_cast<uint64_t>(&args[i]);
      e.args[11] = reinterpret_cast<uint64_t>(&args[i + 200]);
      e.string_mask = kStringMasks[2];
    }
    b.add(e);
  }
  std::string payload;
  h = b.encode(payload);
  strings_bytes = 0;
  for (int i = 0; i < 200; ++i) strings_bytes += texts[i].size() + (i % 2 ? 0 : 4);
  return payload;
}

}  // namespace

TEST_CASE("string arguments decode in event order from the strings section",
          "[chunk_codec][strings]") {
  ChunkHeader h;
  size_t n_bytes = 0;
  std::string payload = strings_chunk(h, n_bytes);
  ChunkDecoder d(payload, &kArgCounts, &kStringMasks);
  REQUIRE(d.start(h));
  int count = 0;
  while (d.has_next()) {
    d.advance();
    const Event& e = d.event();
    int i = static_cast<int>(1000 - e.time_ns);  // events come in time order
    INFO("event " << i);
    if (i % 2) {
      REQUIRE(e.string_mask == 0b10);
      CHECK(e.args[0] == 7);
      CHECK(e.string_arg(1).bytes == s_text(i));
      CHECK(e.string_arg(1).truncated == (i % 3 == 0));
    } else {
      REQUIRE(e.string_mask == kStringMasks[2]);
      CHECK(e.string_arg(0).bytes.empty());
      std::string want = s_text(i);
      want.append("long");
      CHECK(e.string_arg(11).bytes == want);
      CHECK(e.args[1] == 0);
    }
    ++count;
  }
  CHECK(count == 200);
  CHECK_FALSE(d.failed());
}

TEST_CASE("string lengths must add up to the strings section", "[chunk_codec][strings]") {
  ChunkHeader h;
  size_t n_bytes = 0;
  std::string payload = strings_chunk(h, n_bytes);
  // The strings section is last: kind 4, a two-byte size, the bytes.
  REQUIRE(payload.size() > n_bytes + 3);
  REQUIRE(payload[payload.size() - n_bytes - 3] == 4);
  std::string without = payload.substr(0, payload.size() - n_bytes - 3);
  auto drain_error = [](const std::string& p, const ChunkHeader& hh,
                        const std::vector<uint16_t>* masks) {
    ChunkDecoder d(p, &kArgCounts, masks);
    if (d.start(hh)) {
      while (d.has_next()) d.advance();
    }
    return d.error();
  };
  SECTION("a section too short") {
    std::string p = without;
    p.append("\x04\x80\x01", 3);
    p.append(128, 'x');
    CHECK(drain_error(p, h, &kStringMasks) == "string argument runs past the strings section");
  }
  SECTION("no section at all") {
    CHECK(drain_error(without, h, &kStringMasks) ==
          "string argument runs past the strings section");
  }
  SECTION("bytes left over") {
    std::string p = payload;
    p[p.size() - n_bytes - 2] = static_cast<char>(p[p.size() - n_bytes - 2] + 1);
    p += 'x';
    CHECK(drain_error(p, h, &kStringMasks) == "strings section is longer than the events' strings");
  }
  SECTION("a reader whose sites have no strings refuses the leftover section") {
    CHECK(drain_error(payload, h, nullptr) == "strings section is longer than the events' strings");
  }
  SECTION("a section twice") {
    std::string p = payload;
    p.append(payload, payload.size() - n_bytes - 3);
    CHECK(drain_error(p, h, &kStringMasks) == "section 4 appears twice");
  }
}

TEST_CASE("a string length over 64 KiB is refused before it is used", "[chunk_codec][strings]") {
  // One event of site 0 whose string claims 64 KiB + 1 bytes, all present.
  ChunkBuilder b;
  std::string big(kMaxStringArgBytes, 'b');
  StringArg s{big};
  Event e = ev(100, 0, 2, 1);
  e.args[1] = reinterpret_cast<uint64_t>(&s);
  e.string_mask = 0b10;
  b.add(e);
  std::string payload;
  ChunkHeader h = b.encode(payload);
  ChunkDecoder ok(payload, &kArgCounts, &kStringMasks);
  REQUIRE(ok.start(h));
  ok.advance();
  CHECK(ok.event().string_arg(1).bytes.size() == kMaxStringArgBytes);
  // The column holds varint(65536 << 1) = 80 80 08: make it 65537 << 1 | 0
  // and add the byte it needs.
  size_t at = payload.find(std::string("\x80\x80\x08", 3));
  REQUIRE(at != std::string::npos);
  payload[at] = static_cast<char>(0x82);
  size_t section = payload.size() - kMaxStringArgBytes - 4;  // kind, 3-byte size
  REQUIRE(payload[section] == 4);
  payload[section + 1] = static_cast<char>(0x81);  // 65537 = 81 80 04
  payload += 'b';
  ChunkDecoder d(payload, &kArgCounts, &kStringMasks);
  CHECK_FALSE(d.start(h));
  CHECK(d.error() == "string argument longer than 64 KiB");
}

TEST_CASE("a column that ends early fails the batch before a later column reads it",
          "[chunk_codec]") {
  // One event, no sites in the chunk's table and a site column whose one
  // byte starts a varint that never ends: the shape check looks up each
  // event's site, which the site column never wrote (the reader fuzzer found
  // this as a null read under UBSan, with an empty site column; a column
  // with fewer bytes than events now fails before any is read).
  ChunkBuilder b;
  b.add(ev(100, 0, 2, 1, 2));
  std::string encoded;
  ChunkHeader h = b.encode(encoded);
  std::string events;
  ByteWriter w(events);
  w.varint(1);  // events
  w.varint(0);  // sites
  w.varint(1);  // threads
  w.varint(3);
  w.varint(4);
  w.varint(0);  // no delta columns
  // Column sizes: time, site, thread, CPU, shape, then the argument columns.
  const uint8_t sizes[5] = {1, 1, 1, 1, 1};
  for (int i = 0; i < 5 + kMaxArgs; ++i) w.varint(i < 5 ? sizes[i] : 0);
  // time, site (cut), thread, cpu, shape (two arguments)
  const uint8_t columns[] = {0, 0x80, 0, 1, 2};
  w.bytes(columns, sizeof columns);
  std::string payload;
  encode_chunk_header(payload, h);
  ByteWriter p(payload);
  p.u8(static_cast<uint8_t>(SectionKind::events));
  p.str(events);
  ChunkDecoder d(payload, &kArgCounts);
  CHECK_FALSE(d.start(h));
  CHECK(d.error() == "event columns end early");
}

TEST_CASE("a column with fewer bytes than events fails the chunk before a batch is read",
          "[chunk_codec]") {
  ChunkBuilder b;
  b.add(ev(100, 0, 2, 1, 2));
  b.add(ev(200, 0, 2, 1, 2));
  std::string payload;
  ChunkHeader h = b.encode(payload);
  // The time column's size, after the count, a site, a thread and the
  // delta mask: 2 -> 1 (the section keeps its size: one byte more of the
  // site column then).
  std::string events;
  ByteWriter w(events);
  w.varint(2);  // events
  w.varint(1);  // sites
  w.varint(0);
  w.varint(1);  // threads
  w.varint(3);
  w.varint(4);
  w.varint(0);  // no delta columns
  const uint8_t sizes[5] = {1, 3, 2, 2, 2};
  for (int i = 0; i < 5 + kMaxArgs; ++i) w.varint(i < 5 ? sizes[i] : 0);
  const uint8_t columns[] = {0, 0, 0, 0, 0, 0, 0, 0, 2, 2};
  w.bytes(columns, sizeof columns);
  std::string bad;
  encode_chunk_header(bad, h);
  ByteWriter p(bad);
  p.u8(static_cast<uint8_t>(SectionKind::events));
  p.str(events);
  ChunkDecoder d(bad, &kArgCounts);
  CHECK_FALSE(d.start(h));
  CHECK(d.error() == "event columns are shorter than their events");
}

TEST_CASE("events before skip_events_before() are passed over a whole batch at a time",
          "[chunk_codec]") {
  // 1000 events 10 ns apart, with process and lost records among them.
  ChunkBuilder b;
  for (uint64_t i = 0; i < 1000; ++i) {
    // Threads, CPUs and sites that vary, so that a column passed over by the
    // wrong number of values shows in the events after it.
    Event e = ev(100 + 10 * i, i % 3 == 0 ? 1 : 0, 0);
    e.tid = 4 + static_cast<uint32_t>(i % 5);
    e.cpu = static_cast<uint32_t>(i % 2) * 300;
    b.add(e);
  }
  b.add(ProcessEvent{3003, ProcessEventKind::exit, 3, 4, 0, 0, ""});
  b.add(ProcessEvent{8003, ProcessEventKind::exit, 3, 5, 0, 0, ""});
  b.add(LostEvent{5000, 5001, 0, 2, 9});
  std::string payload;
  ChunkHeader h = b.encode(payload);
  auto records = [&](bool arguments, uint64_t skip_before, uint64_t* passed_over) {
    ChunkDecoder d(payload, &kArgCounts);
    if (!arguments) d.skip_arguments();
    d.skip_events_before(skip_before);
    REQUIRE(d.start(h));
    std::vector<std::string> out;
    while (d.has_next()) {
      d.advance();
      char line[96];
      if (d.kind() != RecordKind::event) {
        const bool process = d.kind() == RecordKind::process;
        snprintf(line, sizeof line, "%c%llu", process ? 'p' : 'l',
                 static_cast<unsigned long long>(process ? d.process().time_ns
                                                         : d.lost().time_begin_ns));
      } else {
        const Event& e = d.event();
        snprintf(line, sizeof line, "e%llu s%u t%u c%u", static_cast<unsigned long long>(e.time_ns),
                 e.site_id, e.tid, e.cpu);
      }
      out.emplace_back(line);
    }
    CHECK_FALSE(d.failed());
    *passed_over = d.events_passed_over();
    return out;
  };
  uint64_t none = 0;
  const std::vector<std::string> all = records(false, 0, &none);
  CHECK(none == 0);
  const uint64_t before = 6005;  // events from 100 + 10 * 591 on pass
  uint64_t passed = 0;
  const std::vector<std::string> skipping = records(false, before, &passed);
  // Whole batches (64 events) only, all of them before the bound.
  CHECK(passed == 9 * 64);
  CHECK(passed % 64 == 0);
  CHECK(100 + 10 * (passed - 1) < before);
  // The same records, but for the events of those batches.
  std::vector<std::string> expected;
  for (const std::string& r : all) {
    if (r[0] == 'e' && std::stoull(r.substr(1)) < 100 + 10 * passed) continue;
    expected.push_back(r);
  }
  CHECK(skipping == expected);
  // With arguments wanted (their deltas run from event to event) nothing is passed over.
  uint64_t with_args = 0;
  records(true, before, &with_args);
  CHECK(with_args == 0);
  // A bound after every event: all of them passed over, the other records still come.
  uint64_t every = 0;
  const std::vector<std::string> tail = records(false, 1'000'000, &every);
  CHECK(every == 1000);
  CHECK(tail == std::vector<std::string>{"p3003", "l5000", "p8003"});
}
