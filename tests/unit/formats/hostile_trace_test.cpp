// Trace files made to hurt the reader (formats/FORMAT.md section 6, "Memory
// budget"): tables that expand to gigabytes, an index whose offsets wrap
// around 2^64, chunk headers whose counts lie. Each file is built here with
// valid checksums, and each test checks exact counts and that memory stays
// within the reader's budget: by the reader's own accounting and by this
// binary's allocator, which counts every byte operator new hands out.
#include <malloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <set>

#include "formats/read_budget.h"
#include "formats/trace_reader.h"
#include "tests/unit/formats/trace_assembler.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

std::atomic<uint64_t> g_live{0};
std::atomic<uint64_t> g_peak{0};

void counted(void* p) {
  const uint64_t live = g_live += malloc_usable_size(p);
  uint64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
}
void* counted_new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  counted(p);
  return p;
}
void counted_delete(void* p) {
  if (p == nullptr) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}

// The most heap bytes held at once while f ran, beyond what was held before.
template <typename F>
uint64_t heap_peak_of(F&& f) {
  const uint64_t before = g_live.load();
  g_peak = before;
  f();
  return g_peak.load() - before;
}

constexpr uint64_t kMiB = 1 << 20;

// Ten events of site 2 (two arguments), the first argument numbering them.
ChunkBuilder ten_events(uint64_t first) {
  ChunkBuilder b;
  for (uint64_t i = 0; i < 10; ++i) {
    Event e;
    e.time_ns = 2'000'000 + 1000 * (first + i);
    e.pid = e.tid = 7;
    e.site_id = 2;
    e.arg_count = 2;
    e.args[0] = first + i;
    e.args[1] = 5;
    b.add(e);
  }
  return b;
}

TraceAssembler with_ten_events() {
  TraceAssembler a(sample_metadata(), sample_sites(3));
  ChunkBuilder b = ten_events(0);
  a.chunk(b);
  return a;
}

struct Read {
  std::vector<Record> records;
  ReadDiagnostics diag;
  size_t objects = 0;
  uint64_t heap_peak = 0;
};

Read read(const std::string& bytes, ReaderOptions options = {}) {
  Read out;
  out.heap_peak = heap_peak_of([&] {
    auto r = TraceReader::open_bytes(bytes, "hostile.trace", options);
    REQUIRE(r.ok());
    out.records = read_all(*r);
    out.diag = r->diagnostics();
    out.objects = r->objects().size();
  });
  return out;
}

// The first arguments of the events read, each once.
std::multiset<uint64_t> event_numbers(const Read& r) {
  std::multiset<uint64_t> out;
  for (const Record& rec : r.records) {
    if (const auto* e = std::get_if<Event>(&rec)) out.insert(e->args[0]);
  }
  return out;
}

size_t over_budget_problems(const ReadDiagnostics& d) {
  size_t n = 0;
  for (const ReadProblem& p : d.problems) n += p.over_budget ? 1 : 0;
  return n;
}

// An object block body claiming the most symbols, each three zero bytes:
// 48 MiB that zstd stores in about 1.5 KiB.
std::string widest_object() {
  std::string plain;
  ByteWriter w(plain);
  w.str("");
  w.str("");
  w.varint(kMaxObjectSymbols);
  plain.append(3 * kMaxObjectSymbols, '\0');
  return plain;
}

}  // namespace

void* operator new(size_t n) { return counted_new(n); }
void* operator new[](size_t n) { return counted_new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_new(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, size_t) noexcept { counted_delete(p); }

TEST_CASE("object blocks that each claim 2^24 symbols stay within the memory budget", "[hostile]") {
  // Four of them in a file of about 6.5 KiB: decoded, each would take 768 MiB.
  TraceAssembler a = with_ten_events();
  const std::string body = a.frame(widest_object());
  for (int i = 0; i < 4; ++i) a.index().objects.push_back(a.raw_block(6, body));
  a.finish();
  REQUIRE(a.bytes().size() < 8 * 1024);
  Read r = read(a.bytes());
  CHECK(event_numbers(r).size() == 10);
  CHECK(r.objects == 0);
  REQUIRE(over_budget_problems(r.diag) == 4);
  CHECK(r.diag.problems[0].message.find("decoding its 16777216 symbols needs") !=
        std::string::npos);
  CHECK(r.diag.memory_budget == kDefaultReadBudget);
  CHECK(r.diag.memory_peak <= kDefaultReadBudget);
  CHECK(r.heap_peak <= kDefaultReadBudget);
}

TEST_CASE("the tables a reader decompresses add up to its budget at most", "[hostile]") {
  // Forty such blocks, listed by the index and found by a scan: with a budget
  // of 64 MiB, one 48 MiB body is decompressed, the others are not.
  TraceAssembler a = with_ten_events();
  const std::string body = a.frame(widest_object());
  for (int i = 0; i < 40; ++i) a.index().objects.push_back(a.raw_block(6, body));
  a.finish();
  ReaderOptions options;
  options.memory_budget = 64 * kMiB;
  for (bool scanned : {false, true}) {
    INFO((scanned ? "scanned" : "through the index"));
    std::string bytes = a.bytes();
    if (scanned) bytes.resize(bytes.size() - kTrailerSize);
    Read r = read(bytes, options);
    CHECK(event_numbers(r).size() == 10);
    CHECK(r.objects == 0);
    CHECK(over_budget_problems(r.diag) == 40);
    CHECK(r.diag.tables_decompressed <= options.memory_budget);
    CHECK(r.diag.memory_peak <= options.memory_budget);
    CHECK(r.heap_peak <= options.memory_budget);
  }
}

TEST_CASE("an index whose offsets wrap around 2^64 reads no chunk twice", "[hostile]") {
  TraceAssembler a = with_ten_events();
  const IndexEntry chunk = a.index().chunks[0];
  // After the chunk, an entry near 2^64 whose end wraps to the chunk's
  // start, then the chunk again: each entry starts where the one before
  // ends, modulo 2^64.
  const uint64_t k = 16;
  a.index().chunks.push_back(IndexEntry{~uint64_t{0} - k + 1, chunk.offset + k, chunk.header});
  a.index().chunks.push_back(chunk);
  a.finish();
  Read r = read(a.bytes());
  const auto numbers = event_numbers(r);
  CHECK(numbers.size() == 10);
  CHECK(std::set<uint64_t>(numbers.begin(), numbers.end()).size() == 10);
  CHECK(r.diag.chunks_read == 1);
  REQUIRE_FALSE(r.diag.problems.empty());
  CHECK(r.diag.problems[0].message.find("reading chunks without it") != std::string::npos);
}

TEST_CASE("a block found inside the chunk before it leaves that chunk out", "[hostile]") {
  // Chunk A's uncompressed header is longer than 56 bytes (fields of a newer
  // minor version, which readers skip) and holds the whole block of chunk B;
  // garbage after A makes the scan resume inside A, where it finds B.
  TraceAssembler a(sample_metadata(), sample_sites(3));
  ChunkBuilder b = ten_events(100);
  std::string b_payload;
  const ChunkHeader b_header = b.encode(b_payload);
  std::string b_block;
  {
    std::string f = a.frame(b_payload);
    BlockHeader h;
    h.kind = static_cast<uint16_t>(BlockKind::chunk);
    h.header_size = kChunkHeaderSize;
    h.body_size = f.size();
    encode_block_header(b_block, h);
    encode_chunk_header(b_block, b_header);
    b_block += f;
  }
  ChunkBuilder first = ten_events(0);
  std::string payload;
  const ChunkHeader header = first.encode(payload);
  std::string head;
  encode_chunk_header(head, header);
  a.raw_block(static_cast<uint16_t>(BlockKind::chunk), a.frame(payload), head + b_block);
  a.bytes().append(64, 'x');
  Read r = read(a.bytes());
  const auto numbers = event_numbers(r);
  CHECK(numbers == std::multiset<uint64_t>{100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
  CHECK(r.diag.chunks_bad == 1);
  CHECK(r.diag.chunks_read == 1);
}

TEST_CASE("a chunk header's counts are checked against its bytes before anything is reserved",
          "[hostile]") {
  // A chunk whose header and events section claim 2^24 events (or more)
  // with columns that hold the first 100 (one zero byte each: no arguments),
  // beside a good chunk of ten: decoded on worker threads, the claimed count
  // once sized the decoded copy of the chunk after its first batch decoded.
  for (uint32_t claimed : {kMaxChunkRecords, ~uint32_t{0}}) {
    TraceAssembler a = with_ten_events();
    ChunkHeader h = a.index().chunks[0].header;
    h.min_time_ns = 1'000'000;
    h.max_time_ns = 1'500'000;
    h.events = claimed;
    h.process_events = h.lost_records = 0;
    std::string events;
    ByteWriter w(events);
    w.varint(claimed);
    w.varint(1);  // sites: 2
    w.varint(2);
    w.varint(1);  // threads: 7/7
    w.varint(7);
    w.varint(7);
    w.varint(0);  // no delta columns
    constexpr int kHeld = 100;
    for (int i = 0; i < 5 + kMaxArgs; ++i) w.varint(i < 5 ? kHeld : 0);
    events.append(5 * kHeld, '\0');
    std::string payload;
    encode_chunk_header(payload, h);
    ByteWriter p(payload);
    p.u8(static_cast<uint8_t>(SectionKind::events));
    p.str(events);
    a.chunk(payload, h);
    a.finish();
    // With a budget of 4 GiB the budget alone would allow the reservation:
    // the count checks refuse the chunk first.
    for (uint64_t budget : {kDefaultReadBudget, uint64_t{4096} * kMiB}) {
      for (unsigned threads : {1u, 2u}) {
        INFO(claimed << " events claimed, " << threads << " decoding threads, budget " << budget);
        ReaderOptions options;
        options.decode_threads = threads;
        options.memory_budget = budget;
        Read r = read(a.bytes(), options);
        CHECK(event_numbers(r).size() == 10);
        CHECK(r.diag.chunks_bad == 1);
        CHECK(r.heap_peak < 16 * kMiB);
      }
    }
  }
}

TEST_CASE("a probe table the budget cannot hold fails the open with what to do", "[hostile]") {
  auto sites = sample_sites(13);
  for (int i = 0; i < 20000; ++i) {
    ProbeSite s = sites[12];  // twelve arguments
    s.id = static_cast<uint32_t>(sites.size());
    sites.push_back(s);
  }
  TraceAssembler a(sample_metadata(), sites);
  a.finish();
  ReaderOptions options;
  options.memory_budget = 16 * kMiB;
  auto r = TraceReader::open_bytes(a.bytes(), "big.trace", options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("the probe table of 'big.trace'") != std::string::npos);
  CHECK(r.error().message().find("--max-memory") != std::string::npos);
  options.memory_budget = kDefaultReadBudget;
  CHECK(TraceReader::open_bytes(a.bytes(), "big.trace", options).ok());
}

TEST_CASE("a summary of many drop causes is left out when the budget cannot hold it", "[hostile]") {
  TraceAssembler a = with_ten_events();
  TraceSummary s;
  s.events = 10;
  for (int i = 0; i < 200000; ++i) s.dropped.emplace_back("", i);
  a.summary(s, 3);
  a.finish();
  ReaderOptions options;
  options.memory_budget = 4 * kMiB;
  auto r = TraceReader::open_bytes(a.bytes(), "drops.trace", options);
  REQUIRE(r.ok());
  CHECK_FALSE(r->summary().has_value());
  CHECK(over_budget_problems(r->diagnostics()) == 1);
  CHECK(read_all(*r).size() == 10);
  options.memory_budget = kDefaultReadBudget;
  auto whole = TraceReader::open_bytes(a.bytes(), "drops.trace", options);
  REQUIRE(whole.ok());
  REQUIRE(whole->summary().has_value());
  CHECK(whole->summary()->dropped.size() == 200000);
}
