// The reader against damaged files: truncation at every byte, bit flips,
// wrong magic, newer versions, empty and missing files, hostile sizes.
// (Split from trace_reader_test.cpp, which covers well-formed traces.)
#include <sys/resource.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>

#include "formats/file_layout.h"
#include "formats/read_budget.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "formats/zstd_codec.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;
using usdt::Result;

namespace {

// A small file of four chunks that overlap in time, with every record kind
// and string arguments (site 2's second argument, site 3's first and third).
struct SmallTrace {
  StringKeeper strings;  // the string arguments of chunk_records
  std::string bytes;
  uint64_t data_start = 0;                       // end of the probe table
  std::vector<uint64_t> chunk_begin, chunk_end;  // offsets of each chunk block
  std::vector<std::vector<Record>> chunk_records;
  uint64_t chunks_end = 0;  // where the summary begins
};

// Records of the given chunks, in the reader's order.
std::vector<Record> expected_of(const SmallTrace& t, const std::vector<size_t>& chunks) {
  struct K {
    uint64_t time;
    int rank;
    size_t chunk, seq;
    const Record* r;
  };
  std::vector<K> ks;
  for (size_t c : chunks) {
    for (size_t i = 0; i < t.chunk_records[c].size(); ++i) {
      const Record& r = t.chunk_records[c][i];
      ks.push_back(K{record_time(r), record_rank(r), c, i, &r});
    }
  }
  std::sort(ks.begin(), ks.end(), [](const K& a, const K& b) {
    return std::tie(a.time, a.rank, a.chunk, a.seq) < std::tie(b.time, b.rank, b.chunk, b.seq);
  });
  std::vector<Record> out;
  for (auto& k : ks) out.push_back(*k.r);
  return out;
}

const SmallTrace& small_trace() {
  static SmallTrace t = [] {
    SmallTrace t;
    TempPath tmp;
    auto sites = sample_sites(4);
    sites[2].args[1].is_string = true;
    sites[3].args[0].is_string = true;
    sites[3].args[2].is_string = true;
    const std::string texts[] = {"", "hello", std::string("\xff\xfe\0bad", 6), "cut"};
    WriterOptions opt;
    opt.chunk_bytes = 1 << 20;
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites, opt);
    REQUIRE(w.ok());
    t.data_start = w->bytes_written();
    for (int c = 0; c < 4; ++c) {
      std::vector<Record> recs;
      // Chunk c covers times 1000*(4-c) .. +2500: later chunks are older.
      uint64_t base = 1000 * static_cast<uint64_t>(4 - c);
      recs.push_back(
          ProcessEvent{base, ProcessEventKind::exec, 7, 7, 1, 1, "p" + std::to_string(c)});
      for (int i = 0; i < 5; ++i) {
        Event e;
        e.time_ns = base + 500 * static_cast<uint64_t>(i);
        e.site_id = static_cast<uint32_t>(1 + (i % 3));
        e.pid = 7;
        e.tid = 7 + static_cast<uint32_t>(c);
        e.cpu = static_cast<uint32_t>(c);
        e.arg_count = static_cast<uint8_t>(e.site_id);
        for (int a = 0; a < e.arg_count; ++a) e.args[a] = 100u * c + i + a;
        for (int a = 0; a < e.arg_count; ++a) {
          if (!sites[e.site_id].args[a].is_string) continue;
          e.string_mask = static_cast<uint16_t>(e.string_mask | (1u << a));
          if (c == 1 && a == 2) {  // a string that could not be read
            e.missing_mask = static_cast<uint16_t>(e.missing_mask | (1u << a));
            e.args[a] = 0;
            continue;
          }
          const std::string& text = texts[(c + i + a) % 4];
          e.args[a] = t.strings.make(text, text == "cut");
        }
        recs.push_back(e);
      }
      recs.push_back(LostEvent{base + 100, base + 2400, static_cast<uint32_t>(c), 1, 3});
      for (const auto& r : recs) {
        REQUIRE(std::visit([&](const auto& x) { return w->append(x); }, r).ok());
      }
      t.chunk_begin.push_back(w->bytes_written());
      REQUIRE(w->flush().ok());
      t.chunk_end.push_back(w->bytes_written());
      t.chunk_records.push_back(recs);
    }
    t.chunks_end = w->bytes_written();
    TraceSummary s{
        9000, 20, 12, {0, 8, 8, 4}, {0, 12, 0, 0}, {{"malformed", 3}, {"ring_resync", 0}}};
    REQUIRE(w->finish(s).ok());
    t.bytes = read_file_bytes(tmp.str());
    return t;
  }();
  return t;
}

std::vector<Record> read_bytes(const std::string& bytes, Result<TraceReader>* keep = nullptr) {
  auto r = TraceReader::open_bytes(bytes, "x.trace");
  REQUIRE(r.ok());
  static StringKeeper strings;  // outlives the records returned
  auto out = read_all(*r, &strings);
  if (keep) *keep = std::move(r);
  return out;
}

void check_same(const std::vector<Record>& got, const std::vector<Record>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("record " << i << ": got " << describe(got[i]) << ", want " << describe(want[i]));
    REQUIRE(same(got[i], want[i]));
  }
}

}  // namespace

TEST_CASE("the small damage-test trace reads back whole", "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  auto r = TraceReader::open_bytes(t.bytes, "x.trace");
  REQUIRE(r.ok());
  StringKeeper strings;
  check_same(read_all(*r, &strings), expected_of(t, {0, 1, 2, 3}));
  CHECK(r->diagnostics().chunks_read == 4);
  CHECK_FALSE(r->diagnostics().truncated);
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->end_monotonic_ns == 9000);
  using Drops = std::vector<std::pair<std::string, uint64_t>>;
  CHECK(r->summary()->dropped == Drops{{"malformed", 3}, {"ring_resync", 0}});
}

TEST_CASE("a trace cut at every byte reads its complete chunks", "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  for (size_t len = 0; len < t.bytes.size(); ++len) {
    INFO("cut at " << len << " of " << t.bytes.size());
    auto r = TraceReader::open_bytes(t.bytes.substr(0, len), "x.trace");
    if (len < t.data_start) {
      REQUIRE_FALSE(r.ok());
      std::string m = r.error().message();
      INFO(m);
      CHECK(m.find("'x.trace'") != std::string::npos);
      CHECK(m.find("offset") != std::string::npos);
      if (len == 0) CHECK(m == "'x.trace' is empty: not a usdt-trace file (no header at offset 0)");
      continue;
    }
    REQUIRE(r.ok());
    std::vector<size_t> complete;
    for (size_t c = 0; c < t.chunk_end.size(); ++c) {
      if (t.chunk_end[c] <= len) complete.push_back(c);
    }
    StringKeeper strings;
    check_same(read_all(*r, &strings), expected_of(t, complete));
    const auto& d = r->diagnostics();
    CHECK(d.truncated);
    CHECK(d.chunks_bad == 0);
    CHECK(d.chunks_read == complete.size());
    REQUIRE(d.problems.size() == 1);
    CHECK(d.problems[0].message.find("'x.trace'") != std::string::npos);
    CHECK(d.problems[0].offset <= len);
    // The summary block sits between the last chunk and the index.
    bool summary_complete = len >= t.chunks_end && t.bytes.size() - len < 200 &&
                            len > t.chunks_end + 16 && r->summary().has_value();
    if (summary_complete) CHECK(r->summary()->events == 20);
    if (len <= t.chunks_end) CHECK_FALSE(r->summary().has_value());
  }
}

TEST_CASE("a flipped bit in a chunk loses that chunk only", "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  auto all = expected_of(t, {0, 1, 2, 3});
  size_t flips = 0, harmless = 0;
  for (size_t c = 0; c < 4; ++c) {
    std::vector<size_t> others;
    for (size_t o = 0; o < 4; ++o)
      if (o != c) others.push_back(o);
    auto want = expected_of(t, others);
    for (uint64_t at = t.chunk_begin[c]; at < t.chunk_end[c]; ++at) {
      for (int bit = 0; bit < 8; ++bit) {
        INFO("chunk " << c << " byte " << at << " bit " << bit);
        ++flips;
        std::string b = t.bytes;
        b[at] = static_cast<char>(b[at] ^ (1 << bit));
        Result<TraceReader> r = usdt::Error("unset");
        auto got = read_bytes(b, &r);
        const auto& d = r->diagnostics();
        if (d.problems.empty()) {
          // A bit zstd does not interpret (the frame header's unused bit,
          // some padding): the content, which the checksum covers, is intact.
          ++harmless;
          check_same(got, all);
          continue;
        }
        check_same(got, want);
        CHECK(d.chunks_bad == 1);
        CHECK(d.chunks_read == 3);
        CHECK_FALSE(d.truncated);
        REQUIRE(d.problems.size() == 1);
        CHECK(d.problems[0].offset == t.chunk_begin[c]);
        CHECK(d.problems[0].message.find("damaged") != std::string::npos);
      }
    }
  }
  CHECK(harmless * 50 < flips);
}

TEST_CASE("a flipped bit anywhere never crashes and never invents records",
          "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  auto all = expected_of(t, {0, 1, 2, 3});
  for (size_t at = 0; at < t.bytes.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      INFO("byte " << at << " bit " << bit);
      std::string b = t.bytes;
      b[at] = static_cast<char>(b[at] ^ (1 << bit));
      auto r = TraceReader::open_bytes(b, "x.trace");
      if (at < t.data_start) {
        // Header, metadata and probe table: the file cannot be trusted, or
        // (a flip in a version's minor or a reserved field) reads normally.
        if (!r.ok()) CHECK(r.error().message().find("x.trace") != std::string::npos);
        continue;
      }
      REQUIRE(r.ok());
      StringKeeper strings;
      auto got = read_all(*r, &strings);
      // Every record read is one that was written, in order.
      size_t j = 0;
      for (const auto& g : got) {
        while (j < all.size() && !same(g, all[j])) ++j;
        REQUIRE(j < all.size());
        ++j;
      }
      if (at >= t.chunks_end) {
        // Footer damage: every chunk is still found (by scanning), and the
        // damage is reported unless the bit was one zstd does not interpret.
        check_same(got, all);
        if (r->diagnostics().problems.empty()) {
          REQUIRE(r->summary().has_value());
          CHECK(r->summary()->events == 20);
        }
      }
    }
  }
}

TEST_CASE("open rejects files that are not traces, with one clear message",
          "[trace_reader][damage]") {
  SECTION("missing file") {
    auto r = TraceReader::open("/nonexistent/x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "cannot open '/nonexistent/x.trace': No such file or directory");
  }
  SECTION("empty file") {
    TempPath tmp;
    auto r = TraceReader::open(tmp.str());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() ==
          "'" + tmp.str() + "' is empty: not a usdt-trace file (no header at offset 0)");
  }
  SECTION("wrong magic") {
    auto r = TraceReader::open_bytes("PERFILE2 and then some more bytes", "x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "'x.trace' is not a usdt-trace file (bad magic at offset 0)");
  }
  SECTION("short garbage") {
    auto r = TraceReader::open_bytes("ab", "x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "'x.trace' is not a usdt-trace file (bad magic at offset 0)");
  }
  SECTION("newer major version") {
    std::string b = small_trace().bytes;
    b[8] = 3;
    b[10] = 0;
    auto r = TraceReader::open_bytes(b, "x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() ==
          "'x.trace' has format version 3.0, this reader understands up to 1.x: upgrade "
          "usdt-report");
  }
  SECTION("newer minor version reads") {
    std::string b = small_trace().bytes;
    b[10] = 7;
    auto r = TraceReader::open_bytes(b, "x.trace");
    REQUIRE(r.ok());
    CHECK(read_all(*r).size() == expected_of(small_trace(), {0, 1, 2, 3}).size());
  }
  SECTION("hostile header size") {
    std::string b = small_trace().bytes;
    b[12] = static_cast<char>(0xff);
    b[13] = static_cast<char>(0xff);
    b[14] = static_cast<char>(0xff);
    auto r = TraceReader::open_bytes(b, "x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() ==
          "'x.trace' has a bad header size 16777215 at offset 12 (expected 24..4096)");
  }
  SECTION("hostile metadata block size") {
    std::string b = small_trace().bytes;
    // The body size of the metadata block: bytes 24+8 .. 24+16.
    for (int i = 32; i < 40; ++i) b[i] = static_cast<char>(0x7f);
    auto r = TraceReader::open_bytes(b, "x.trace");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message().find("exceeds the limit") != std::string::npos);
    CHECK(r.error().message().find("offset 24") != std::string::npos);
  }
}

TEST_CASE("a chunk block with a hostile size is skipped by a scan without allocating",
          "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  // Without the footer, the scan meets a chunk claiming 2^62 bytes: it skips
  // to the next block frame and goes on.
  std::string b = t.bytes.substr(0, t.chunks_end);
  uint64_t at = t.chunk_begin[1] + 8;
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<char>(i == 7 ? 0x40 : 0);
  Result<TraceReader> r = usdt::Error("unset");
  check_same(read_bytes(b, &r), expected_of(t, {0, 2, 3}));
  CHECK(r->diagnostics().truncated);  // no footer
  REQUIRE(r->diagnostics().problems.size() == 2);
  CHECK(r->diagnostics().problems[0].offset == t.chunk_begin[1]);
  CHECK(r->diagnostics().problems[0].message.find("exceeds the limit") != std::string::npos);
  CHECK(r->diagnostics().problems[1].message.find("without its footer") != std::string::npos);
}

TEST_CASE("without a footer, a flipped bit in a chunk still loses that chunk only",
          "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  std::string unfinished = t.bytes.substr(0, t.chunks_end);
  auto all = expected_of(t, {0, 1, 2, 3});
  for (size_t c = 0; c < 4; ++c) {
    std::vector<size_t> others;
    for (size_t o = 0; o < 4; ++o)
      if (o != c) others.push_back(o);
    auto want = expected_of(t, others);
    for (uint64_t at = t.chunk_begin[c]; at < t.chunk_end[c]; ++at) {
      for (int bit = 0; bit < 8; ++bit) {
        INFO("chunk " << c << " byte " << at << " bit " << bit);
        std::string b = unfinished;
        b[at] = static_cast<char>(b[at] ^ (1 << bit));
        Result<TraceReader> r = usdt::Error("unset");
        auto got = read_bytes(b, &r);
        const auto& d = r->diagnostics();
        CHECK(d.truncated);
        REQUIRE_FALSE(d.problems.empty());
        if (d.problems.size() == 1 && d.records_skipped == 0 &&
            d.problems[0].message.find("without its footer") != std::string::npos) {
          // Only "without its footer": a bit zstd does not interpret.
          check_same(got, all);
          continue;
        }
        check_same(got, want);
        // Reported, or (its kind turned into one this reader does not know)
        // skipped and counted as a newer writer's block.
        // (A damaged size in the last chunk looks like a truncation there.)
        if (d.records_skipped == 0) {
          bool named = false;
          for (const auto& p : d.problems) named = named || p.offset == t.chunk_begin[c];
          CHECK(named);
        }
      }
    }
  }
}

TEST_CASE("a full disk is a sticky error and what was flushed stays readable",
          "[trace_writer][damage]") {
  TempPath tmp;
  struct rlimit old;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 6000;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  uint64_t flushed_events = 0;
  usdt::Status failure;
  {
    WriterOptions opt;
    opt.chunk_bytes = 300;
    opt.zstd_level = 1;
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3), opt);
    REQUIRE(w.ok());
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100000 && failure.ok(); ++i) {
      Event e;
      e.time_ns = 1000 + static_cast<uint64_t>(i);
      e.site_id = 2;
      e.arg_count = 2;
      e.args[0] = rng();
      e.args[1] = rng();
      failure = w->append(e);
      if (failure.ok()) flushed_events = w->events_written();
    }
    REQUIRE_FALSE(failure.ok());
    CHECK(failure.error().errno_value() == EFBIG);
    CHECK(failure.error().message().find(tmp.str()) != std::string::npos);
    // Sticky: later calls fail the same way.
    CHECK_FALSE(w->append(Event{}).ok());
    CHECK_FALSE(w->finish(TraceSummary{}).ok());
  }
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
  std::signal(SIGXFSZ, old_handler);
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  auto got = read_all(*r);
  CHECK(got.size() == flushed_events);
  CHECK(flushed_events > 0);
  CHECK(r->diagnostics().truncated);
}

TEST_CASE("overlapping chunks beyond the memory budget are skipped and reported",
          "[trace_reader][damage]") {
  const SmallTrace& t = small_trace();
  // The four chunks overlap in time, so all are held at once: a budget that
  // holds some of them but not all, found by growing it.
  for (uint64_t budget = 16 << 10; budget < 64 << 20; budget += budget / 8) {
    ReaderOptions opt;
    opt.memory_budget = budget;
    auto r = TraceReader::open_bytes(t.bytes, "x.trace", opt);
    if (!r.ok()) continue;  // not even the tables fit
    auto got = read_all(*r);
    const auto& d = r->diagnostics();
    INFO("budget " << budget);
    CHECK(d.memory_peak <= budget);
    CHECK(d.chunks_bad == 0);  // left out for the budget, not damaged
    if (d.chunks_read == 4) {
      FAIL("every chunk fits before some but not all of them did");
    }
    if (d.chunks_read == 0) continue;
    REQUIRE_FALSE(d.problems.empty());
    CHECK(d.problems[0].over_budget);
    CHECK(d.problems[0].message.find("the reader's memory budget of " + byte_size_text(budget)) !=
          std::string::npos);
    CHECK(got.size() < 28);
    return;
  }
  FAIL("no budget holds some of the chunks but not all");
}
