// Format 1.3 (formats/FORMAT.md): call stacks (chunk section 5), mmap process
// events and object blocks, written by TraceWriter and read back by
// TraceReader, and the reader against damaged stacks sections and object
// blocks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "tests/unit/support/format_test_util.h"
#include "formats/byte_cursor.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "formats/zstd_codec.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

// What the reader returned for one event, with its stack copied (the
// reader's addresses live only until its next next()).
struct ReadEvent {
  uint64_t time_ns = 0;
  uint32_t pid = 0;
  std::vector<uint64_t> stack;
  bool truncated = false;
  bool null_stack = true;  // Event::stack was nullptr
};

struct ReadBack {
  std::vector<ReadEvent> events;
  std::vector<ProcessEvent> process;
};

ReadBack read_back(TraceReader& r) {
  ReadBack out;
  while (r.next()) {
    if (r.kind() == RecordKind::process) {
      out.process.push_back(r.process());
      continue;
    }
    if (r.kind() != RecordKind::event) continue;
    const Event& e = r.event();
    ReadEvent c;
    c.time_ns = e.time_ns;
    c.pid = e.pid;
    c.null_stack = e.stack == nullptr;
    if (e.stack != nullptr) c.stack.assign(e.stack, e.stack + e.stack_depth);
    c.truncated = e.stack_truncated;
    out.events.push_back(std::move(c));
  }
  return out;
}

Event stack_event(uint64_t t, const std::vector<uint64_t>& stack, bool truncated = false,
                  uint32_t pid = 10) {
  Event e;
  e.time_ns = t;
  e.pid = pid;
  e.tid = pid + 1;
  e.site_id = 0;
  e.stack = stack.empty() ? nullptr : stack.data();
  e.stack_depth = static_cast<uint16_t>(stack.size());
  e.stack_truncated = truncated;
  return e;
}

ProcessEvent mmap_event(uint64_t t, uint32_t pid, uint64_t address, std::string path,
                        std::string build_id) {
  ProcessEvent p;
  p.time_ns = t;
  p.kind = ProcessEventKind::mmap;
  p.pid = pid;
  p.tid = pid;
  p.map_address = address;
  p.map_length = 0x2000;
  p.map_file_offset = 0x1000;
  p.path = std::move(path);
  p.build_id = std::move(build_id);
  return p;
}

std::vector<uint64_t> deep_stack(size_t depth) {
  std::vector<uint64_t> s(depth);
  for (size_t i = 0; i < depth; ++i) s[i] = 0x7f0000001000ull + 0x40 * i;
  return s;
}

// The body of section kind in a chunk payload, or nullopt.
std::optional<std::string> section_of(const std::string& payload, uint8_t kind) {
  ByteCursor in(payload);
  in.skip(kChunkHeaderSize);
  while (in.ok() && !in.at_end()) {
    uint8_t k = in.u8();
    std::string_view body = in.bytes(in.varint());
    if (in.ok() && k == kind) return std::string(body);
  }
  return std::nullopt;
}

// payload with the body of section kind replaced by body.
std::string replace_section(const std::string& payload, uint8_t kind, const std::string& body) {
  std::string out = payload.substr(0, kChunkHeaderSize);
  ByteCursor in(payload);
  in.skip(kChunkHeaderSize);
  ByteWriter w(out);
  while (in.ok() && !in.at_end()) {
    uint8_t k = in.u8();
    std::string_view b = in.bytes(in.varint());
    w.u8(k);
    w.str(k == kind ? std::string_view(body) : b);
  }
  return out;
}

// A whole chunk block around payload (whose first 56 bytes are the header).
std::string chunk_block(const std::string& payload) {
  auto z = ZstdCompressor::create(3);
  REQUIRE(z.ok());
  std::string frame;
  REQUIRE(z->compress(payload, frame).ok());
  std::string block;
  BlockHeader h;
  h.kind = static_cast<uint16_t>(BlockKind::chunk);
  h.header_size = kChunkHeaderSize;
  h.body_size = frame.size();
  encode_block_header(block, h);
  block.append(payload, 0, kChunkHeaderSize);
  block.append(frame);
  return block;
}

// The start of a trace (header, metadata, probe table of one site without
// arguments): a file to which tests append hand-made blocks.
std::string trace_start() {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    REQUIRE(w->finish({}).ok());
  }
  std::string bytes = read_file_bytes(tmp.str());
  // Only the header, metadata and probe table: walk two blocks.
  uint64_t at = kFileHeaderSize;
  for (int i = 0; i < 2; ++i) {
    ByteCursor in(std::string_view(bytes).substr(at));
    at += decode_block_header(in).total_size();
  }
  return bytes.substr(0, at);
}

// The kinds of the blocks of a file, in order, up to its trailer.
std::vector<uint16_t> block_kinds(const std::string& bytes,
                                  std::vector<uint64_t>* offsets = nullptr) {
  std::vector<uint16_t> kinds;
  uint64_t at = kFileHeaderSize;
  while (bytes.size() - at >= kBlockHeaderSize) {
    ByteCursor in(std::string_view(bytes).substr(at));
    BlockHeader h = decode_block_header(in);
    if (h.sync != kBlockSync) break;
    kinds.push_back(h.kind);
    if (offsets) offsets->push_back(at);
    at += h.total_size();
  }
  return kinds;
}

}  // namespace

TEST_CASE("stacks round trip: shared, truncated, cut at the limit, absent", "[trace_stacks]") {
  const std::vector<uint64_t> s1 = {0x401000, 0x401234, 0x7f00000010aa};
  // Addresses that go down and wrap: the deltas are modulo 2^64.
  const std::vector<uint64_t> s2 = {~uint64_t{0}, 0, 0x10, 0x8};
  const std::vector<uint64_t> deep = deep_stack(1500);
  const std::vector<uint64_t> none;
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    std::vector<uint64_t> scratch = s1;
    REQUIRE(w->append(stack_event(100, scratch)).ok());
    // The writer copied the addresses: the caller may reuse its buffer.
    std::fill(scratch.begin(), scratch.end(), 0xdead);
    REQUIRE(w->append(stack_event(110, s1)).ok());
    REQUIRE(w->append(stack_event(120, s1, true)).ok());  // same frames, truncated: distinct
    REQUIRE(w->append(stack_event(130, none)).ok());
    Event zero = stack_event(140, none, true);  // no frame: no stack, whatever the bit
    REQUIRE(w->append(zero).ok());
    REQUIRE(w->append(stack_event(150, deep)).ok());
    REQUIRE(w->append(stack_event(160, s2)).ok());
    REQUIRE(w->flush().ok());
    // A second chunk, where the same stack is stored again (per chunk).
    REQUIRE(w->append(stack_event(200, s1)).ok());
    REQUIRE(w->append(stack_event(210, none)).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(stack_event(300, none)).ok());  // a chunk without stacks
    REQUIRE(w->finish({}).ok());
  }
  for (unsigned threads : {1u, 2u}) {
    ReaderOptions options;
    options.decode_threads = threads;
    auto r = TraceReader::open(tmp.str(), options);
    REQUIRE(r.ok());
    ReadBack got = read_back(*r);
    INFO("decode threads " << threads);
    CHECK(r->diagnostics().problems.empty());
    CHECK(r->diagnostics().chunks_read == 3);
    CHECK(r->diagnostics().records_skipped == 0);
    REQUIRE(got.events.size() == 10);
    CHECK(got.events[0].stack == s1);
    CHECK_FALSE(got.events[0].truncated);
    CHECK(got.events[1].stack == s1);
    CHECK(got.events[2].stack == s1);
    CHECK(got.events[2].truncated);
    CHECK(got.events[3].null_stack);
    CHECK(got.events[3].stack.empty());
    CHECK_FALSE(got.events[3].truncated);
    CHECK(got.events[4].null_stack);
    CHECK_FALSE(got.events[4].truncated);
    REQUIRE(got.events[5].stack.size() == kMaxStackDepth);
    CHECK(std::equal(got.events[5].stack.begin(), got.events[5].stack.end(), deep.begin()));
    CHECK(got.events[5].truncated);
    CHECK(got.events[6].stack == s2);
    CHECK(got.events[7].stack == s1);
    CHECK(got.events[8].null_stack);
    CHECK(got.events[9].null_stack);
  }
}

TEST_CASE("a chunk stores each distinct stack once and omits the section without stacks",
          "[trace_stacks]") {
  const std::vector<uint64_t> a = {1, 2, 3}, b = {1, 2}, none;
  ChunkBuilder builder;
  builder.add(stack_event(10, a));
  builder.add(stack_event(20, b));
  builder.add(stack_event(30, a));
  builder.add(stack_event(40, a, true));
  builder.add(stack_event(50, none));
  builder.add(stack_event(5, b));  // earlier in time: references follow event order
  std::string payload;
  ChunkHeader h = builder.encode(payload);
  auto section = section_of(payload, 5);
  REQUIRE(section);
  ByteCursor in(*section);
  CHECK(in.varint() == 3);  // a, b, a truncated
  // a: depth 3, not truncated, 1, +1, +1
  CHECK(in.varint() == (3u << 1));
  CHECK(in.varint() == 1);
  CHECK(in.svarint() == 1);
  CHECK(in.svarint() == 1);
  CHECK(in.varint() == (2u << 1));  // b
  CHECK(in.varint() == 1);
  CHECK(in.svarint() == 1);
  CHECK(in.varint() == ((3u << 1) | 1));  // a, truncated
  in.skip(3);
  CHECK(in.varint() == 6);  // references, in time order
  std::vector<uint64_t> refs;
  for (int i = 0; i < 6; ++i) refs.push_back(in.varint());
  CHECK(refs == std::vector<uint64_t>{2, 1, 2, 1, 3, 0});
  CHECK(in.ok());
  CHECK(in.at_end());

  std::vector<uint8_t> counts = {0};
  ChunkDecoder d(payload, &counts);
  REQUIRE(d.start(h));
  std::vector<std::vector<uint64_t>> stacks;
  while (d.has_next()) {
    d.advance();
    const Event& e = d.event();
    stacks.emplace_back(e.stack, e.stack + e.stack_depth);
  }
  CHECK(stacks == std::vector<std::vector<uint64_t>>{b, a, b, a, a, {}});

  // No event with a stack: no section 5.
  builder.add(stack_event(10, none));
  builder.encode(payload);
  CHECK_FALSE(section_of(payload, 5));
}

TEST_CASE("mmap process events round trip, cut at their limits", "[trace_stacks]") {
  TempPath tmp;
  const std::string long_id(200, 'a');
  const std::string long_path = "/" + std::string(5000, 'p');
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    REQUIRE(w->append(mmap_event(100, 10, 0x400000, "/usr/bin/prog", "0123abcd")).ok());
    ProcessEvent comm{110, ProcessEventKind::comm, 10, 11, 0, 0, "prog"};
    REQUIRE(w->append(comm).ok());
    REQUIRE(w->append(mmap_event(120, 12, 0x7f0000000000ull, long_path, long_id)).ok());
    REQUIRE(w->append(ProcessEvent{130, ProcessEventKind::exit, 10, 11, 0, 0, ""}).ok());
    REQUIRE(w->finish({}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  ReadBack got = read_back(*r);
  CHECK(r->diagnostics().problems.empty());
  CHECK(r->diagnostics().records_skipped == 0);
  REQUIRE(got.process.size() == 4);
  const ProcessEvent& m = got.process[0];
  CHECK(m.kind == ProcessEventKind::mmap);
  CHECK(m.time_ns == 100);
  CHECK(m.pid == 10);
  CHECK(m.tid == 10);
  CHECK(m.map_address == 0x400000);
  CHECK(m.map_length == 0x2000);
  CHECK(m.map_file_offset == 0x1000);
  CHECK(m.path == "/usr/bin/prog");
  CHECK(m.build_id == "0123abcd");
  CHECK(m.comm.empty());
  // A comm row after an mmap row has no mapping fields left over.
  const ProcessEvent& c = got.process[1];
  CHECK(c.kind == ProcessEventKind::comm);
  CHECK(c.comm == "prog");
  CHECK(c.tid == 11);
  CHECK(c.path.empty());
  CHECK(c.build_id.empty());
  CHECK(c.map_address == 0);
  const ProcessEvent& cut = got.process[2];
  CHECK(cut.build_id == long_id.substr(0, kMaxBuildId));
  CHECK(cut.path == long_path.substr(0, kMaxMappedPath));
  CHECK(cut.map_address == 0x7f0000000000ull);
  CHECK(got.process[3].kind == ProcessEventKind::exit);

  // A pid filter applies to mmap rows as to other process events.
  auto f = TraceReader::open(tmp.str());
  REQUIRE(f.ok());
  ReadFilter filter;
  filter.pid = 12;
  f->set_filter(filter);
  ReadBack only = read_back(*f);
  REQUIRE(only.process.size() == 1);
  CHECK(only.process[0].pid == 12);
}

TEST_CASE("object blocks come before the chunk they serve, from the index or a scan",
          "[trace_stacks]") {
  TempPath tmp;
  ObjectTable lib;
  lib.build_id = "00ff";
  lib.path = "/usr/lib/libx.so";
  lib.symbols = {{0x3000, 0x10, "_Z1cv"}, {0x1000, 0, "a"}, {0x2000, 0x20, std::string(5000, 'n')}};
  ObjectTable prog;
  prog.path = "/usr/bin/prog";  // no build-id: keyed by path
  const std::vector<uint64_t> s = {0x401000, 0x7f0000001000ull};
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    REQUIRE(w->append(mmap_event(50, 10, 0x7f0000000000ull, lib.path, lib.build_id)).ok());
    REQUIRE(w->append(stack_event(100, s)).ok());
    // Written at once, before the chunk still buffered.
    REQUIRE(w->add_object(lib).ok());
    REQUIRE(w->add_object(prog).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(stack_event(200, s)).ok());
    REQUIRE(w->finish({}).ok());
  }
  const std::string bytes = read_file_bytes(tmp.str());
  std::vector<uint64_t> offsets;
  CHECK(block_kinds(bytes, &offsets) == std::vector<uint16_t>{1, 2, 6, 6, 3, 3, 4, 5});

  auto check_objects = [&](const TraceReader& r) {
    REQUIRE(r.objects().size() == 2);
    const ObjectTable& o = r.objects()[0];
    CHECK(o.build_id == "00ff");
    CHECK(o.path == "/usr/lib/libx.so");
    REQUIRE(o.symbols.size() == 3);
    CHECK(o.symbols[0].file_offset == 0x1000);
    CHECK(o.symbols[0].name == "a");
    CHECK(o.symbols[0].size == 0);
    CHECK(o.symbols[1].file_offset == 0x2000);
    CHECK(o.symbols[1].name == std::string(kMaxSymbolName, 'n'));
    CHECK(o.symbols[2].file_offset == 0x3000);
    CHECK(o.symbols[2].size == 0x10);
    CHECK(o.symbols[2].name == "_Z1cv");
    CHECK(r.objects()[1].path == "/usr/bin/prog");
    CHECK(r.objects()[1].build_id.empty());
    CHECK(r.objects()[1].symbols.empty());
  };

  SECTION("a finished file lists them in its index") {
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    check_objects(*r);
    CHECK(r->diagnostics().problems.empty());
    CHECK_FALSE(r->diagnostics().truncated);
    ReadBack got = read_back(*r);
    CHECK(got.events.size() == 2);
    CHECK(r->diagnostics().records_skipped == 0);
  }
  SECTION("a file cut before its footer finds them by its scan") {
    auto r = TraceReader::open_bytes(bytes.substr(0, offsets[6]), "cut.trace");
    REQUIRE(r.ok());
    check_objects(*r);
    CHECK(r->diagnostics().truncated);
    ReadBack got = read_back(*r);
    CHECK(got.events.size() == 2);
    CHECK(got.events[1].stack == s);
    CHECK(r->diagnostics().chunks_read == 2);
    CHECK(r->diagnostics().chunks_bad == 0);
  }
  SECTION("a damaged object block is reported and left out, with or without the index") {
    std::string damaged = bytes;
    damaged[offsets[3] - 6] ^= 0x40;  // inside the first object block's zstd frame
    for (bool footer : {true, false}) {
      INFO("footer " << footer);
      auto r = TraceReader::open_bytes(footer ? damaged : damaged.substr(0, offsets[6]), "o.trace");
      REQUIRE(r.ok());
      REQUIRE(r->objects().size() == 1);
      CHECK(r->objects()[0].path == "/usr/bin/prog");
      bool reported = false;
      for (const auto& p : r->diagnostics().problems) reported |= p.offset == offsets[2];
      CHECK(reported);
      CHECK(read_back(*r).events.size() == 2);
      CHECK(r->diagnostics().chunks_read == 2);
    }
  }
}

TEST_CASE("objects are written at once and kept in file order", "[trace_stacks]") {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    for (int i = 0; i < 3; ++i) {
      ObjectTable o;
      o.path = "/lib" + std::to_string(i);
      REQUIRE(w->add_object(o).ok());
      REQUIRE(w->append(stack_event(100 + uint64_t(i), {0x1000u + uint64_t(i)})).ok());
      REQUIRE(w->flush().ok());
    }
    REQUIRE(w->finish({}).ok());
  }
  CHECK(block_kinds(read_file_bytes(tmp.str())) ==
        std::vector<uint16_t>{1, 2, 6, 3, 6, 3, 6, 3, 4, 5});
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  REQUIRE(r->objects().size() == 3);
  for (int i = 0; i < 3; ++i) CHECK(r->objects()[size_t(i)].path == "/lib" + std::to_string(i));
}

TEST_CASE("a damaged stacks section makes its chunk damaged, never a crash", "[trace_stacks]") {
  // One good chunk, then the chunk under test, without a footer (so that a
  // hand-made block needs no index entry).
  const std::vector<uint64_t> a = {0x1000, 0x2000}, none;
  ChunkBuilder builder;
  builder.add(stack_event(10, a));
  builder.add(stack_event(20, none));
  std::string good_payload;
  builder.encode(good_payload);
  builder.add(stack_event(30, a));
  builder.add(stack_event(40, none));
  std::string payload;
  builder.encode(payload);

  std::string body;
  ByteWriter w(body);
  const char* what = "";
  SECTION("a reference past the stacks") {
    what = "bad reference";
    w.varint(1);
    w.varint(2 << 1);
    w.varint(0x1000);
    w.svarint(0x1000);
    w.varint(2);
    w.varint(2);  // only one stack
    w.varint(0);
  }
  SECTION("depth 0") {
    what = "depth 0";
    w.varint(1);
    w.varint(1);  // depth 0, truncated
    w.varint(0x1000);
    w.varint(2);
    w.varint(1);
    w.varint(0);
  }
  SECTION("deeper than the limit") {
    what = "too deep";
    w.varint(1);
    w.varint((kMaxStackDepth + 1) << 1);
    for (uint32_t i = 0; i <= kMaxStackDepth; ++i) w.varint(1);
    w.varint(2);
    w.varint(1);
    w.varint(0);
  }
  SECTION("stacks that run past the section") {
    what = "short";
    w.varint(2);
    w.varint(3 << 1);
    w.varint(0x1000);
    w.svarint(4);
  }
  SECTION("a depth that claims more frames than the bytes left") {
    what = "short depth";
    w.varint(1);
    w.varint(1000 << 1);
    w.varint(0x1000);
    w.varint(2);
  }
  SECTION("references fewer than the events") {
    what = "short references";
    w.varint(1);
    w.varint(1 << 1);
    w.varint(0x1000);
    w.varint(2);
    w.varint(1);
  }
  SECTION("a count of references that is not the events'") {
    what = "reference count";
    w.varint(1);
    w.varint(1 << 1);
    w.varint(0x1000);
    w.varint(3);
    w.varint(1);
    w.varint(0);
    w.varint(0);
  }
  SECTION("no stack at all") {
    what = "u = 0";
    w.varint(0);
    w.varint(2);
    w.varint(0);
    w.varint(0);
  }
  SECTION("more stacks than events") {
    what = "u > events";
    w.varint(3);
    for (int i = 0; i < 3; ++i) {
      w.varint(1 << 1);
      w.varint(0x1000);
    }
    w.varint(2);
    w.varint(1);
    w.varint(0);
  }
  SECTION("an empty section") { what = "empty"; }
  INFO(what);
  std::string bad_payload = replace_section(payload, 5, body);

  std::vector<uint8_t> counts = {0};
  ChunkHeader h;
  {
    ByteCursor in(bad_payload);
    h = decode_chunk_header(in);
  }
  ChunkDecoder d(bad_payload, &counts);
  CHECK_FALSE(d.start(h));
  CHECK(d.failed());
  CHECK_FALSE(d.has_next());

  std::string file = trace_start();
  const uint64_t bad_at = file.size() + chunk_block(good_payload).size();
  file += chunk_block(good_payload);
  file += chunk_block(bad_payload);
  auto r = TraceReader::open_bytes(file, "bad.trace");
  REQUIRE(r.ok());
  ReadBack got = read_back(*r);
  REQUIRE(got.events.size() == 2);  // the good chunk's only
  CHECK(got.events[0].stack == a);
  CHECK(got.events[1].null_stack);
  CHECK(r->diagnostics().chunks_read == 1);
  CHECK(r->diagnostics().chunks_bad == 1);
  bool reported = false;
  for (const auto& p : r->diagnostics().problems) {
    reported |= p.offset == bad_at && p.message.find("damaged") != std::string::npos;
  }
  CHECK(reported);
}

TEST_CASE("a stacks section in a chunk without events, or twice, is damage", "[trace_stacks]") {
  ChunkBuilder builder;
  builder.add(stack_event(10, {0x1000}));
  std::string payload;
  ChunkHeader h = builder.encode(payload);
  std::vector<uint8_t> counts = {0};
  std::string section = *section_of(payload, 5);
  std::string twice = payload;
  ByteWriter w(twice);
  w.u8(5);
  w.str(section);
  ChunkDecoder d(twice, &counts);
  CHECK_FALSE(d.start(h));

  ChunkBuilder process_only;
  process_only.add(ProcessEvent{10, ProcessEventKind::comm, 1, 1, 0, 0, "x"});
  ChunkHeader ph = process_only.encode(payload);
  ByteWriter p(payload);
  p.u8(5);
  p.str(section);
  ChunkDecoder e(payload, &counts);
  CHECK_FALSE(e.start(ph));
}

TEST_CASE("the read filter and index skipping keep working with stacks", "[trace_stacks]") {
  TempPath tmp;
  {
    WriterOptions options;
    options.flush_interval_ms = 0;
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1), options);
    REQUIRE(w.ok());
    for (uint64_t c = 0; c < 4; ++c) {
      for (uint64_t i = 0; i < 50; ++i) {
        std::vector<uint64_t> s = {0x1000 + c, 0x2000 + i % 3};
        REQUIRE(w->append(stack_event(c * 1000 + i, s, i % 2, 10 + uint32_t(c))).ok());
      }
      REQUIRE(w->flush().ok());
    }
    REQUIRE(w->finish({}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  ReadFilter f;
  f.time_min_ns = 2000;
  f.time_max_ns = 2049;
  r->set_filter(f);
  ReadBack got = read_back(*r);
  REQUIRE(got.events.size() == 50);
  for (size_t i = 0; i < got.events.size(); ++i) {
    CHECK(got.events[i].stack == std::vector<uint64_t>{0x1002, 0x2000 + i % 3});
    CHECK(got.events[i].truncated == (i % 2 == 1));
  }
  CHECK(r->diagnostics().chunks_read == 1);  // the others skipped by the index
}
