// Decoding on worker threads (ReaderOptions::decode_threads, usdt-report -j)
// against decoding in the calling thread: the same records in the same
// order, and the same diagnostics, on a trace of many overlapping chunks,
// on damaged and cut copies of it, and under the reader's memory limits.
#include <catch2/catch.hpp>
#include <random>

#include "tests/unit/support/format_test_util.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

// About 40 small chunks that overlap in time (records reach the writer up to
// 3 chunks late), with process events, lost records and string arguments.
const std::string& many_chunk_trace() {
  static const std::string bytes = [] {
    TempPath tmp;
    auto sites = sample_sites(6);
    sites[2].args[1].is_string = true;
    StringKeeper strings;
    uint64_t texts[] = {strings.make("select 1"), strings.make(""), strings.make("cut", true)};
    WriterOptions opt;
    opt.chunk_bytes = 2048;
    opt.flush_interval_ms = 0;
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites, opt);
    REQUIRE(w.ok());
    std::mt19937_64 rng(13);
    uint64_t now = 2'000'000;
    for (int n = 0; n < 20000; ++n) {
      uint64_t r = rng();
      now += r % 50;
      // Some records arrive late: they land in a later, overlapping chunk.
      uint64_t t = (r >> 8) % 16 == 0 ? now - (r >> 16) % 3000 : now;
      if ((r >> 20) % 500 == 0) {
        REQUIRE(w->append(ProcessEvent{t, ProcessEventKind::comm, 7, 7 + uint32_t(r % 3), 0, 0,
                                       "worker"}));
        continue;
      }
      if ((r >> 20) % 701 == 0) {
        REQUIRE(w->append(LostEvent{t, t + 10, uint32_t(r % 2), uint32_t(r % 6), 3}));
        continue;
      }
      Event e;
      e.time_ns = t;
      e.pid = 7;
      e.tid = 7 + static_cast<uint32_t>(r % 3);
      e.cpu = static_cast<uint32_t>(r % 2);
      e.site_id = static_cast<uint32_t>((r >> 24) % 6);
      e.arg_count = static_cast<uint8_t>(sites[e.site_id].args.size());
      for (int i = 0; i < e.arg_count; ++i) e.args[i] = (r >> (i + 4)) % 1000;
      if (e.site_id == 2) {
        e.string_mask = 0b10;
        e.args[1] = texts[(r >> 40) % 3];
      }
      if (e.arg_count > 0 && (r >> 50) % 7 == 0) e.missing_mask = 1;
      REQUIRE(w->append(e));
    }
    TraceSummary summary;
    REQUIRE(w->finish(summary));
    return read_file_bytes(tmp.str());
  }();
  return bytes;
}

struct Read {
  std::vector<Record> records;
  ReadDiagnostics diag;
  StringKeeper strings;
};

std::unique_ptr<Read> read_with(const std::string& bytes, ReaderOptions options,
                                const ReadFilter* filter = nullptr) {
  auto out = std::make_unique<Read>();
  auto r = TraceReader::open_bytes(bytes, "t.trace", options);
  if (!r) return out;
  if (filter) r->set_filter(*filter);
  out->records = read_all(*r, &out->strings);
  out->diag = r->diagnostics();
  return out;
}

void require_same(const Read& a, const Read& b) {
  REQUIRE(a.records.size() == b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    INFO("record " << i << ": " << describe(a.records[i]) << " vs " << describe(b.records[i]));
    REQUIRE(same(a.records[i], b.records[i]));
  }
  REQUIRE(a.diag.truncated == b.diag.truncated);
  REQUIRE(a.diag.chunks_read == b.diag.chunks_read);
  REQUIRE(a.diag.chunks_bad == b.diag.chunks_bad);
  REQUIRE(a.diag.records_skipped == b.diag.records_skipped);
  REQUIRE(a.diag.problems.size() == b.diag.problems.size());
  for (size_t i = 0; i < a.diag.problems.size(); ++i) {
    REQUIRE(a.diag.problems[i].offset == b.diag.problems[i].offset);
    REQUIRE(a.diag.problems[i].message == b.diag.problems[i].message);
    REQUIRE(a.diag.problems[i].over_budget == b.diag.problems[i].over_budget);
  }
}

ReaderOptions threads(unsigned n) {
  ReaderOptions o;
  o.decode_threads = n;
  return o;
}

}  // namespace

TEST_CASE("worker threads return the serial reader's records", "[parallel_read]") {
  const std::string& bytes = many_chunk_trace();
  auto serial = read_with(bytes, threads(1));
  REQUIRE(serial->diag.chunks_read >= 30);
  REQUIRE(serial->records.size() == 20000);
  for (unsigned n : {2u, 3u, 8u}) {
    INFO(n << " threads");
    require_same(*serial, *read_with(bytes, threads(n)));
  }
  SECTION("with the smallest window") {
    ReaderOptions o = threads(2);
    o.decode_ahead_bytes = 1;
    o.decode_ahead_chunks = 1;
    require_same(*serial, *read_with(bytes, o));
  }
  SECTION("with filters that skip chunks") {
    ReadFilter f;
    f.site_ids = {2, 4};
    f.time_min_ns = 2'200'000;
    f.time_max_ns = 2'300'000;
    auto s = read_with(bytes, threads(1), &f);
    REQUIRE(!s->records.empty());
    require_same(*s, *read_with(bytes, threads(2), &f));
    f.tid = 8;
    require_same(*read_with(bytes, threads(1), &f), *read_with(bytes, threads(3), &f));
  }
}

TEST_CASE("worker threads report damage as the serial reader does", "[parallel_read]") {
  const std::string& bytes = many_chunk_trace();
  SECTION("a flipped byte") {
    for (size_t at = 200; at < bytes.size(); at += bytes.size() / 40) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      INFO("byte " << at);
      require_same(*read_with(bad, threads(1)), *read_with(bad, threads(2)));
    }
  }
  SECTION("a cut file (no index: the chunks are found by a scan)") {
    for (size_t len = bytes.size() / 3; len < bytes.size(); len += bytes.size() / 17) {
      std::string cut = bytes.substr(0, len);
      INFO("length " << len);
      auto s = read_with(cut, threads(1));
      REQUIRE(s->diag.truncated);
      require_same(*s, *read_with(cut, threads(3)));
    }
  }
  SECTION("overlapping chunks beyond the memory budget") {
    // From a budget that holds hardly a chunk to one that holds them all:
    // the workers, which load with a room of their own, skip the same ones.
    bool some_skipped = false;
    for (uint64_t budget = 64 << 10; budget <= 8 << 20; budget *= 2) {
      INFO("budget " << budget);
      ReaderOptions o = threads(1);
      o.memory_budget = budget;
      auto s = read_with(bytes, o);
      for (const ReadProblem& p : s->diag.problems) some_skipped |= p.over_budget;
      CHECK(s->diag.memory_peak <= budget);
      for (unsigned n : {2u, 3u}) {
        o.decode_threads = n;
        auto p = read_with(bytes, o);
        require_same(*s, *p);
        CHECK(p->diag.memory_peak <= budget);
      }
    }
    REQUIRE(some_skipped);
  }
}
