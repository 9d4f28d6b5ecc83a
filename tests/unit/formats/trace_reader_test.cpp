#include "formats/trace_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>

#include "tests/unit/support/format_test_util.h"
#include "formats/trace_writer.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

Event make_event(uint64_t t, uint32_t site, uint32_t pid, uint32_t tid, uint32_t cpu,
                 std::vector<uint64_t> args, uint16_t missing = 0) {
  Event e;
  e.time_ns = t;
  e.site_id = site;
  e.pid = pid;
  e.tid = tid;
  e.cpu = cpu;
  e.arg_count = static_cast<uint8_t>(args.size());
  e.missing_mask = missing;
  for (size_t i = 0; i < args.size(); ++i) e.args[i] = args[i];
  return e;
}

}  // namespace

TEST_CASE("a small trace round-trips", "[trace_reader]") {
  TempPath tmp;
  auto sites = sample_sites(4);
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    ProcessEvent p{1500, ProcessEventKind::comm, 10, 10, 0, 0, "prog"};
    REQUIRE(w->append(p).ok());
    REQUIRE(w->append(make_event(2000, 2, 10, 11, 1, {5, 7})).ok());
    REQUIRE(w->append(make_event(1000, 3, 10, 10, 0, {1, 2, 3}, 0b010)).ok());
    REQUIRE(w->append(LostEvent{2500, 3000, 1, 2, 17}).ok());
    TraceSummary s{4000, 2, 17, {0, 0, 1, 1}, {0, 0, 17, 0}, {}};
    REQUIRE(w->finish(s).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  CHECK(r->metadata().hostname == "testhost");
  CHECK(r->metadata().start_realtime_ns == 1700000000000000000ull);
  REQUIRE(r->sites().size() == 4);
  CHECK(r->sites()[3].args.size() == 3);
  CHECK(r->sites()[3].args[1].is_signed);
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->lost == 17);
  CHECK(r->summary()->events_per_site == std::vector<uint64_t>{0, 0, 1, 1});
  auto recs = read_all(*r);
  REQUIRE(recs.size() == 4);
  CHECK(describe(recs[0]) == "event t=1000 site=3 pid=10 tid=10 cpu=0 n=3 miss=2");
  auto& e0 = std::get<Event>(recs[0]);
  CHECK(e0.args[0] == 1);
  CHECK(!e0.has_arg(1));
  CHECK(e0.args[2] == 3);
  CHECK(describe(recs[1]) == "process t=1500 kind=1 pid=10 comm=prog");
  CHECK(describe(recs[2]) == "event t=2000 site=2 pid=10 tid=11 cpu=1 n=2 miss=0");
  CHECK(describe(recs[3]) == "lost t=2500..3000 cpu=1 site=2 count=17");
  CHECK_FALSE(r->diagnostics().truncated);
  CHECK(r->diagnostics().chunks_read == 1);
  CHECK(r->diagnostics().problems.empty());
}

namespace {

// A written trace and the records it must read back, in the reader's order:
// (time, process < event < lost, chunk, order of appending).
struct WrittenTrace {
  std::vector<Record> expected;
  uint64_t chunks = 0;
};

struct Keyed {
  uint64_t time;
  int rank;
  uint64_t chunk;
  uint64_t seq;
  Record record;
};

Record random_record(std::mt19937_64& rng, const std::vector<ProbeSite>& sites, uint64_t time) {
  auto pick = [&](uint64_t n) { return rng() % n; };
  int what = static_cast<int>(pick(20));
  if (what == 0) {
    ProcessEvent p;
    p.time_ns = time;
    p.kind = static_cast<ProcessEventKind>(1 + pick(4));
    p.pid = static_cast<uint32_t>(pick(5) + 1);
    p.tid = static_cast<uint32_t>(pick(3) == 0 ? rng() : p.pid + pick(3));
    p.parent_pid = static_cast<uint32_t>(pick(100));
    p.parent_tid = static_cast<uint32_t>(pick(100));
    p.comm = std::string(pick(20), static_cast<char>('a' + pick(26)));
    return p;
  }
  if (what == 1) {
    LostEvent l;
    l.time_begin_ns = time;
    // Usually a range forward in time; sometimes inverted, which must survive.
    l.time_end_ns = pick(10) == 0 ? time - std::min<uint64_t>(time, pick(500)) : time + pick(5000);
    l.cpu = static_cast<uint32_t>(pick(4));
    l.site_id = pick(3) == 0 ? kNoSite : static_cast<uint32_t>(pick(sites.size()));
    l.count = pick(3) == 0 ? rng() : pick(1000);
    return l;
  }
  Event e;
  e.time_ns = time;
  e.site_id = static_cast<uint32_t>(pick(sites.size()));
  e.pid = static_cast<uint32_t>(pick(4) == 0 ? rng() : pick(5) + 1);
  e.tid = static_cast<uint32_t>(pick(4) == 0 ? rng() : e.pid + pick(3));
  e.cpu = static_cast<uint32_t>(pick(8) == 0 ? rng() : pick(4));
  e.arg_count = static_cast<uint8_t>(pick(sites[e.site_id].args.size() + 1));
  e.missing_mask = static_cast<uint16_t>(pick(3) == 0 ? rng() & ((1u << e.arg_count) - 1) : 0);
  for (int i = 0; i < e.arg_count; ++i) {
    switch (pick(4)) {
      case 0:
        e.args[i] = rng();
        break;
      case 1:
        e.args[i] = pick(100);
        break;
      case 2:
        e.args[i] = static_cast<uint64_t>(-static_cast<int64_t>(pick(100)));
        break;
      default:
        e.args[i] = time / 3 + static_cast<uint64_t>(i);
        break;
    }
  }
  return e;
}

// Writes records from several simulated per-CPU streams, each in time order,
// drained in bursts of random length so that chunks overlap in time.
WrittenTrace write_random(const std::string& path, uint64_t seed, size_t count, WriterOptions opt) {
  std::mt19937_64 rng(seed);
  auto sites = sample_sites(1 + static_cast<int>(rng() % 14));
  auto w = TraceWriter::create(path, sample_metadata(), sites, opt);
  REQUIRE(w.ok());
  int streams = 1 + static_cast<int>(rng() % 4);
  std::vector<uint64_t> clock(streams, 1000000 + rng() % 1000);
  std::vector<Keyed> keyed;
  uint64_t chunk = 0, before = w->bytes_written();
  size_t seq = 0;
  while (seq < count) {
    int s = static_cast<int>(rng() % streams);
    size_t burst = 1 + rng() % 50;
    for (size_t b = 0; b < burst && seq < count; ++b) {
      clock[s] += rng() % 4 == 0 ? 0 : rng() % 2000;  // equal times happen
      Record r = random_record(rng, sites, clock[s]);
      usdt::Status st = std::visit([&](const auto& x) { return w->append(x); }, r);
      REQUIRE(st.ok());
      keyed.push_back(Keyed{record_time(r), record_rank(r), chunk, seq++, r});
      if (w->bytes_written() != before) {
        before = w->bytes_written();
        ++chunk;
      }
    }
    if (rng() % 10 == 0) {
      REQUIRE(w->flush().ok());
      if (w->bytes_written() != before) {
        before = w->bytes_written();
        ++chunk;
      }
    }
  }
  REQUIRE(w->flush().ok());
  if (w->bytes_written() != before) ++chunk;
  TraceSummary summary;
  summary.events = count;
  REQUIRE(w->finish(summary).ok());
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.time, a.rank, a.chunk, a.seq) < std::tie(b.time, b.rank, b.chunk, b.seq);
  });
  WrittenTrace t;
  for (auto& k : keyed) t.expected.push_back(std::move(k.record));
  t.chunks = chunk;
  return t;
}

void check_same(const std::vector<Record>& got, const std::vector<Record>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (!same(got[i], want[i])) {
      INFO("record " << i << ": got " << describe(got[i]) << ", want " << describe(want[i]));
      CHECK(false);
      return;
    }
  }
}

}  // namespace

TEST_CASE("random traces round-trip in exact time order", "[trace_reader]") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    TempPath tmp;
    std::mt19937_64 rng(seed * 7919);
    WriterOptions opt;
    opt.chunk_bytes = 1 + rng() % 20000;
    opt.zstd_level = 1 + static_cast<int>(rng() % 5);
    size_t count = rng() % 5000;
    WrittenTrace t = write_random(tmp.str(), seed, count, opt);
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    check_same(read_all(*r), t.expected);
    CHECK(r->diagnostics().chunks_read == t.chunks);
    CHECK(r->diagnostics().chunks_bad == 0);
    CHECK_FALSE(r->diagnostics().truncated);
    CHECK(r->diagnostics().problems.empty());
    REQUIRE(r->summary().has_value());
    CHECK(r->summary()->events == count);
  }
}

namespace {

// The filter's documented semantics, applied to a written record.
bool filter_keeps(const ReadFilter& f, const Record& r) {
  auto site_ok = [&](uint32_t site) {
    return f.site_ids.empty() ||
           std::find(f.site_ids.begin(), f.site_ids.end(), site) != f.site_ids.end();
  };
  if (auto* e = std::get_if<Event>(&r)) {
    return site_ok(e->site_id) && (!f.pid || e->pid == *f.pid) && (!f.tid || e->tid == *f.tid) &&
           (!f.time_min_ns || e->time_ns >= *f.time_min_ns) &&
           (!f.time_max_ns || e->time_ns <= *f.time_max_ns);
  }
  if (auto* p = std::get_if<ProcessEvent>(&r)) {
    return (!f.pid || p->pid == *f.pid) && (!f.tid || p->tid == *f.tid) &&
           (!f.time_max_ns || p->time_ns <= *f.time_max_ns);
  }
  const auto& l = std::get<LostEvent>(r);
  return (l.site_id == kNoSite || site_ok(l.site_id)) &&
         (!f.time_min_ns || std::max(l.time_begin_ns, l.time_end_ns) >= *f.time_min_ns) &&
         (!f.time_max_ns || std::min(l.time_begin_ns, l.time_end_ns) <= *f.time_max_ns);
}

}  // namespace

TEST_CASE("filters return exactly the matching records", "[trace_reader]") {
  for (uint64_t seed = 100; seed < 130; ++seed) {
    INFO("seed " << seed);
    TempPath tmp;
    std::mt19937_64 rng(seed);
    WriterOptions opt;
    opt.chunk_bytes = 200 + rng() % 3000;
    WrittenTrace t = write_random(tmp.str(), seed, 3000, opt);
    REQUIRE(!t.expected.empty());
    uint64_t t0 = record_time(t.expected.front()), t1 = record_time(t.expected.back());
    ReadFilter f;
    if (rng() % 2)
      f.site_ids = {static_cast<uint32_t>(rng() % 5), static_cast<uint32_t>(rng() % 5)};
    if (rng() % 3 == 0) f.pid = static_cast<uint32_t>(1 + rng() % 5);
    if (rng() % 3 == 0) f.tid = static_cast<uint32_t>(1 + rng() % 7);
    if (rng() % 2) f.time_min_ns = t0 + rng() % (t1 - t0 + 1);
    if (rng() % 2) f.time_max_ns = f.time_min_ns.value_or(t0) + rng() % (t1 - t0 + 1) / 4;
    std::vector<Record> want;
    for (const auto& r : t.expected)
      if (filter_keeps(f, r)) want.push_back(r);
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    r->set_filter(f);
    check_same(read_all(*r), want);
    CHECK(r->diagnostics().chunks_bad == 0);
  }
}

namespace {

// What read_all gives, asked for with next_events() where a coin says so
// (next() otherwise and when no run is there): each event of a run is
// copied before the next call, as a caller must.
std::vector<Record> read_all_in_runs(TraceReader& reader, std::mt19937_64& rng,
                                     uint64_t* in_runs) {
  std::vector<Record> out;
  for (;;) {
    const Event* first = nullptr;
    uint32_t n = rng() % 3 != 0 ? reader.next_events(&first) : 0;
    if (n != 0) {
      for (uint32_t i = 0; i < n; ++i) out.emplace_back(first[i]);
      REQUIRE(reader.kind() == RecordKind::event);
      CHECK(&reader.event() == &first[n - 1]);
      *in_runs += n;
      continue;
    }
    if (!reader.next()) return out;
    switch (reader.kind()) {
      case RecordKind::event: out.emplace_back(reader.event()); break;
      case RecordKind::process: out.emplace_back(reader.process()); break;
      case RecordKind::lost: out.emplace_back(reader.lost()); break;
    }
  }
}

}  // namespace

TEST_CASE("runs of events (next_events) and next() together give next()'s exact order",
          "[trace_reader]") {
  uint64_t in_runs = 0;
  for (uint64_t seed = 300; seed < 340; ++seed) {
    INFO("seed " << seed);
    TempPath tmp;
    std::mt19937_64 rng(seed);
    WriterOptions opt;
    opt.chunk_bytes = 100 + rng() % 8000;
    WrittenTrace t = write_random(tmp.str(), seed, rng() % 4000, opt);
    ReaderOptions options;
    options.decode_threads = seed % 3 == 0 ? 3u : 1u;
    auto r = TraceReader::open(tmp.str(), options);
    REQUIRE(r.ok());
    std::vector<Record> want = t.expected;
    if (seed % 2 == 1 && !want.empty()) {
      // Filters: runs come from chunks that need no check, and from those
      // that do as long as their events pass (a window, a segment, a pid,
      // sites).
      const uint64_t t0 = record_time(want.front()), t1 = record_time(want.back());
      auto somewhere = [&] { return t0 + rng() % (t1 - t0 + 1); };
      ReadFilter f;
      if (rng() % 2) f.time_min_ns = somewhere();
      if (rng() % 2) f.time_max_ns = somewhere();
      if (rng() % 2) {
        f.segment_begin_ns = somewhere();
        f.segment_end_ns = *f.segment_begin_ns + rng() % (t1 - t0 + 1);
      }
      if (rng() % 5 == 0) f.pid = static_cast<uint32_t>(1 + rng() % 5);
      if (rng() % 3 == 0) f.site_ids = {static_cast<uint32_t>(rng() % 3)};
      auto in_segment = [&](const Record& x) {
        const uint64_t t = record_time(x);
        return !f.segment_begin_ns || (t >= *f.segment_begin_ns && t < *f.segment_end_ns);
      };
      want.erase(
          std::remove_if(want.begin(), want.end(),
                         [&](const Record& x) { return !filter_keeps(f, x) || !in_segment(x); }),
          want.end());
      r->set_filter(f);
    }
    check_same(read_all_in_runs(*r, rng, &in_runs), want);
    CHECK(r->diagnostics().chunks_bad == 0);
  }
  CHECK(in_runs > 1000);  // the runs were really taken
}

TEST_CASE("a reader told that no argument is read returns every record without arguments",
          "[trace_reader]") {
  for (uint64_t seed = 200; seed < 215; ++seed) {
    INFO("seed " << seed);
    TempPath tmp;
    WriterOptions opt;
    opt.chunk_bytes = 300 + seed * 97 % 2500;
    WrittenTrace t = write_random(tmp.str(), seed, 2000, opt);
    std::vector<Record> want = t.expected;
    for (Record& r : want) {
      if (Event* e = std::get_if<Event>(&r)) {
        e->arg_count = 0;
        e->missing_mask = 0;
        e->string_mask = 0;
      }
    }
    ReaderOptions options;
    options.decode_threads = seed % 2 == 0 ? 1u : 3u;
    auto r = TraceReader::open(tmp.str(), options);
    REQUIRE(r.ok());
    ReadFilter f;
    f.arguments = false;
    r->set_filter(f);
    check_same(read_all(*r), want);
    CHECK(r->diagnostics().chunks_bad == 0);
  }
}

TEST_CASE("a time window skips the chunks outside it", "[trace_reader]") {
  TempPath tmp;
  auto sites = sample_sites(3);
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    for (uint64_t c = 0; c < 10; ++c) {
      for (uint64_t i = 0; i < 100; ++i) {
        REQUIRE(w->append(make_event(c * 1000 + i, 1, 5, 5, 0, {i})).ok());
      }
      REQUIRE(w->flush().ok());
    }
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  ReadFilter f;
  f.time_min_ns = 3050;
  f.time_max_ns = 4010;
  r->set_filter(f);
  auto got = read_all(*r);
  CHECK(got.size() == 50 + 11);
  CHECK(r->diagnostics().chunks_read == 2);
  CHECK(std::get<Event>(got.front()).time_ns == 3050);
  CHECK(std::get<Event>(got.back()).time_ns == 4010);

  auto r2 = TraceReader::open(tmp.str());
  REQUIRE(r2.ok());
  ReadFilter g;
  g.pid = 6;  // no such process: its bloom bit differs from pid 5's
  r2->set_filter(g);
  CHECK(read_all(*r2).empty());
  CHECK(r2->diagnostics().chunks_read == 0);
}

TEST_CASE("a reader told to read no event reads only the chunks with process records",
          "[trace_reader]") {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3));
    REQUIRE(w.ok());
    for (uint64_t c = 0; c < 10; ++c) {
      if (c == 0 || c == 7) {
        REQUIRE(w->append(ProcessEvent{c * 1000, ProcessEventKind::comm, 5, 5, 0, 0, "p"}).ok());
      }
      for (uint64_t i = 1; i < 100; ++i) {
        REQUIRE(w->append(make_event(c * 1000 + i, 1, 5, 5, 0, {i})).ok());
      }
      REQUIRE(w->flush().ok());
    }
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  ReadFilter f;
  f.events = false;
  r->set_filter(f);
  auto got = read_all(*r);
  REQUIRE(got.size() == 2);
  CHECK(std::get<ProcessEvent>(got[0]).time_ns == 0);
  CHECK(std::get<ProcessEvent>(got[1]).time_ns == 7000);
  CHECK(r->diagnostics().chunks_read == 2);
}

TEST_CASE("chunks written out of time order come back sorted", "[trace_reader]") {
  TempPath tmp;
  auto sites = sample_sites(2);
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    // CPU 1 drains late: its chunk holds times older than the end of CPU 0's.
    for (uint64_t i = 0; i < 10; ++i)
      REQUIRE(w->append(make_event(100 + 10 * i, 1, 1, 1, 0, {i})).ok());
    REQUIRE(w->flush().ok());
    for (uint64_t i = 0; i < 10; ++i)
      REQUIRE(w->append(make_event(95 + 10 * i, 1, 2, 2, 1, {i})).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(make_event(50, 1, 3, 3, 2, {7})).ok());
    REQUIRE(w->append(make_event(100, 1, 3, 3, 2, {8})).ok());  // ties chunk 0's first event
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  auto got = read_all(*r);
  REQUIRE(got.size() == 22);
  std::vector<std::pair<uint64_t, uint32_t>> seen;
  for (const auto& g : got) seen.emplace_back(std::get<Event>(g).time_ns, std::get<Event>(g).pid);
  CHECK(seen[0] == std::make_pair(uint64_t{50}, 3u));
  CHECK(seen[1] == std::make_pair(uint64_t{95}, 2u));
  CHECK(seen[2] == std::make_pair(uint64_t{100}, 1u));  // equal times: chunk order
  CHECK(seen[3] == std::make_pair(uint64_t{100}, 3u));
  CHECK(
      std::is_sorted(seen.begin(), seen.end(), [](auto& a, auto& b) { return a.first < b.first; }));
}

TEST_CASE("events passed over before a window leave the merge in time order", "[trace_reader]") {
  // Chunk A: processes at 30 and 500. Chunk B: a process at 90, events
  // 100-190 (before the window) and 1200-1202. Reading B after its process,
  // the events before the window are passed over up to A's next record
  // (500), and B's next one (1200) comes after it: A's process must come
  // first, whether the reader is asked for a run or for the next record.
  TempPath tmp;
  auto sites = sample_sites(2);
  auto process = [](uint64_t t, uint32_t pid) {
    ProcessEvent p;
    p.time_ns = t;
    p.kind = ProcessEventKind::comm;
    p.pid = pid;
    p.tid = pid;
    p.comm = "p" + std::to_string(pid);
    return p;
  };
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    REQUIRE(w->append(process(30, 1)).ok());
    REQUIRE(w->append(process(500, 2)).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(process(90, 3)).ok());
    for (uint64_t i = 0; i < 10; ++i)
      REQUIRE(w->append(make_event(100 + 10 * i, 1, 3, 3, 0, {i})).ok());
    for (uint64_t i = 0; i < 3; ++i) REQUIRE(w->append(make_event(1200 + i, 1, 3, 3, 0, {i})).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  for (int runs = 0; runs < 2; ++runs) {
    INFO("asking for runs: " << runs);
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    ReadFilter f;
    f.time_min_ns = 1000;
    r->set_filter(f);
    std::vector<uint64_t> times;
    for (;;) {
      const Event* first = nullptr;
      uint32_t n = runs ? r->next_events(&first) : 0;
      for (uint32_t i = 0; i < n; ++i) times.push_back(first[i].time_ns);
      if (n != 0) continue;
      if (!r->next()) break;
      times.push_back(r->kind() == RecordKind::process ? r->process().time_ns : r->event().time_ns);
    }
    CHECK(times == std::vector<uint64_t>{30, 90, 500, 1200, 1201, 1202});
  }
}

TEST_CASE("accessors before the first record and after the last return empty records",
          "[trace_reader]") {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
    REQUIRE(w.ok());
    REQUIRE(w->append(make_event(5, 1, 1, 1, 0, {9})).ok());
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  CHECK(r->event().time_ns == 0);
  REQUIRE(r->next());
  CHECK(r->event().args[0] == 9);
  CHECK_FALSE(r->next());
  CHECK(r->event().time_ns == 0);
  CHECK(r->process().comm.empty());
  CHECK_FALSE(r->next());
}

// ---------------------------------------------------------------------------
// String arguments (format 1.1).

namespace {

// Site 1: one string; site 2: a number then a string; site 3: string, number,
// string.
std::vector<ProbeSite> string_sites() {
  auto sites = sample_sites(4);
  sites[1].args[0].is_string = true;
  sites[2].args[1].is_string = true;
  sites[3].args[0].is_string = true;
  sites[3].args[2].is_string = true;
  for (auto& s : sites) {
    for (auto& a : s.args) {
      if (a.is_string) {
        a.size = 8;
        a.source = usdt::ArgSource::kernel_read;
      }
    }
  }
  return sites;
}

uint16_t string_mask_of(const ProbeSite& site, int arg_count) {
  uint16_t mask = 0;
  for (int i = 0; i < arg_count; ++i) {
    if (site.args[i].is_string) mask = static_cast<uint16_t>(mask | (1u << i));
  }
  return mask;
}

}  // namespace

TEST_CASE("string arguments round-trip: ASCII, empty, cut, invalid UTF-8, missing",
          "[trace_reader][strings]") {
  TempPath tmp;
  auto sites = string_sites();
  const std::string invalid_utf8("\xff\xfe\xc3\x28 \0x", 7);
  const std::string long_text(4095, 'L');
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    // The writer copies: the caller's StringArgs and bytes are gone after append.
    auto append = [&](uint64_t t, uint32_t site, std::vector<std::optional<StringArg>> strs,
                      uint16_t missing = 0) {
      std::vector<std::string> bytes;
      std::vector<StringArg> args(strs.size());
      Event e = make_event(t, site, 10, 11, 0, std::vector<uint64_t>(strs.size(), 0), missing);
      e.string_mask = string_mask_of(sites[site], e.arg_count);
      for (size_t i = 0; i < strs.size(); ++i) {
        if (!(e.string_mask & (1u << i))) {
          e.args[i] = 1000 + i;
        } else if (strs[i]) {
          bytes.emplace_back(strs[i]->bytes);
        }
      }
      size_t b = 0;
      for (size_t i = 0; i < strs.size(); ++i) {
        if ((e.string_mask & (1u << i)) && strs[i]) {
          args[i] = StringArg{bytes[b++], strs[i]->truncated};
          e.args[i] = reinterpret_cast<uint64_t>(&args[i]);
        }
      }
      usdt::Status s = w->append(e);
      for (auto& x : bytes) x.assign(x.size(), '#');  // clobbered after append
      for (auto& a : args) a = StringArg{"clobbered", false};
      return s;
    };
    REQUIRE(append(100, 1, {StringArg{"hello"}}).ok());
    REQUIRE(append(200, 1, {StringArg{""}}).ok());
    REQUIRE(append(300, 1, {StringArg{"abc", true}}).ok());
    REQUIRE(append(400, 1, {StringArg{invalid_utf8}}).ok());
    REQUIRE(append(500, 1, {std::nullopt}).ok());         // null StringArg*: missing
    REQUIRE(append(600, 1, {StringArg{"x"}}, 0b1).ok());  // marked missing
    REQUIRE(append(700, 2, {std::nullopt, StringArg{"second"}}).ok());
    REQUIRE(append(800, 3, {StringArg{"first"}, std::nullopt, StringArg{long_text}}).ok());
    REQUIRE(append(900, 3, {StringArg{""}, std::nullopt, StringArg{"", true}}).ok());
    REQUIRE(append(1000, 3, {StringArg{"only"}}).ok());  // arg_count 1 of 3
    TraceSummary s{2000, 10, 0, {}, {}, {}};
    REQUIRE(w->finish(s).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  REQUIRE(r->sites()[3].args[2].is_string);
  CHECK_FALSE(r->sites()[3].args[1].is_string);
  CHECK(r->sites()[3].args[0].source == usdt::ArgSource::kernel_read);
  std::vector<std::string> got;
  while (r->next()) {
    REQUIRE(r->kind() == RecordKind::event);
    Event e = r->event();
    std::string line = std::to_string(e.time_ns) + ":";
    for (int i = 0; i < e.arg_count; ++i) {
      if (!e.has_arg(i)) {
        line += e.is_string(i) ? " (missing string)" : " (missing)";
      } else if (e.is_string(i)) {
        const StringArg& s = e.string_arg(i);
        line += " \"" + std::string(s.bytes) + "\"" + (s.truncated ? "..." : "");
      } else {
        line += " " + std::to_string(e.args[i]);
      }
    }
    got.push_back(line);
  }
  std::vector<std::string> want = {
      "100: \"hello\"",         "200: \"\"",
      "300: \"abc\"...",        "400: \"" + invalid_utf8 + "\"",
      "500: (missing string)",  "600: (missing string)",
      "700: 1000 \"second\"",   "800: \"first\" 1001 \"" + long_text + "\"",
      "900: \"\" 1001 \"\"...", "1000: \"only\"",
  };
  CHECK(got == want);
  CHECK(r->diagnostics().problems.empty());
  CHECK(r->diagnostics().chunks_bad == 0);

  // Without arguments, the strings section is neither used nor checked.
  auto bare = TraceReader::open(tmp.str());
  REQUIRE(bare.ok());
  ReadFilter f;
  f.arguments = false;
  bare->set_filter(f);
  size_t events = 0;
  while (bare->next()) {
    REQUIRE(bare->kind() == RecordKind::event);
    CHECK(bare->event().arg_count == 0);
    CHECK(bare->event().string_mask == 0);
    ++events;
  }
  CHECK(events == want.size());
  CHECK(bare->diagnostics().problems.empty());
}

TEST_CASE("a string over 64 KiB is cut and marked truncated", "[trace_reader][strings]") {
  TempPath tmp;
  auto sites = string_sites();
  std::string big(kMaxStringArgBytes + 100, 'b');
  big[kMaxStringArgBytes - 1] = 'e';
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    StringArg s{big};
    Event e = make_event(100, 1, 1, 1, 0, {reinterpret_cast<uint64_t>(&s)});
    e.string_mask = 1;
    REQUIRE(w->append(e).ok());
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  REQUIRE(r->next());
  const StringArg& s = r->event().string_arg(0);
  CHECK(s.truncated);
  CHECK(s.bytes == std::string_view(big).substr(0, kMaxStringArgBytes));
  CHECK_FALSE(r->next());
}

TEST_CASE("strings across overlapping chunks come back merged, each with its event",
          "[trace_reader][strings]") {
  auto sites = string_sites();
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    TempPath tmp;
    std::mt19937_64 rng(seed);
    WriterOptions opt;
    opt.chunk_bytes = 200 + rng() % 3000;
    StringKeeper input;
    std::vector<Record> expected;
    {
      auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites, opt);
      REQUIRE(w.ok());
      // Four "CPUs" drained in turn: their chunks overlap in time.
      for (uint32_t round = 0; round < 5; ++round) {
        for (uint32_t cpu = 0; cpu < 4; ++cpu) {
          std::vector<Event> batch;
          for (uint32_t k = 0; k < 50; ++k) {
            uint64_t t = 10000 * round + 40 * k + cpu * 7 + rng() % 5;
            uint32_t site = static_cast<uint32_t>(rng() % 4);
            int n = static_cast<int>(rng() % (sites[site].args.size() + 1));
            Event e = make_event(t, site, 100 + cpu, 200 + cpu, cpu,
                                 std::vector<uint64_t>(static_cast<size_t>(n), 0));
            e.string_mask = string_mask_of(sites[site], n);
            for (int i = 0; i < n; ++i) {
              if (rng() % 6 == 0) {
                e.missing_mask = static_cast<uint16_t>(e.missing_mask | (1u << i));
              } else if (e.is_string(i)) {
                std::string text(rng() % 40, 'a');
                for (auto& c : text) c = static_cast<char>(rng());
                e.args[i] = input.make(text, rng() % 4 == 0);
              } else {
                e.args[i] = rng() % 3 ? rng() % 100 : rng();
              }
            }
            batch.push_back(e);
            expected.push_back(e);
          }
          REQUIRE(w->append_events(batch).ok());
          REQUIRE(w->flush().ok());
        }
      }
      REQUIRE(w->finish(TraceSummary{}).ok());
    }
    std::stable_sort(expected.begin(), expected.end(), [](const Record& a, const Record& b) {
      return record_time(a) < record_time(b);
    });
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    StringKeeper output;
    auto got = read_all(*r, &output);
    CHECK(r->diagnostics().chunks_read >= 20);
    CHECK(r->diagnostics().problems.empty());
    // Equal times across CPUs may come in chunk order: compare as multisets
    // within each time, in order otherwise.
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("record " << i << ": " << describe(got[i]));
      bool found = false;
      for (size_t j = i; j < expected.size() && record_time(expected[j]) == record_time(got[i]);
           ++j) {
        if (same(got[i], expected[j])) {
          std::swap(expected[i], expected[j]);
          found = true;
          break;
        }
      }
      REQUIRE(found);
    }

    // Filtered reads hand out the strings of the events they return.
    auto f = TraceReader::open(tmp.str());
    REQUIRE(f.ok());
    ReadFilter filter;
    filter.site_ids = {3};
    filter.pid = 102;
    f->set_filter(filter);
    size_t n = 0;
    while (f->next()) {
      const Event& e = f->event();
      REQUIRE(e.site_id == 3);
      for (int i = 0; i < e.arg_count; ++i) {
        if (e.is_string(i) && e.has_arg(i)) CHECK(e.string_arg(i).bytes.size() < 40);
      }
      ++n;
    }
    CHECK(n > 0);
  }
}

TEST_CASE("the summary's drops by cause round-trip", "[trace_reader][strings]") {
  TempPath tmp;
  using Drops = std::vector<std::pair<std::string, uint64_t>>;
  Drops drops = {{"malformed", 3},         {"unknown_event_id", 1}, {"ring_resync", 2},
                 {"foreign_process", 120}, {"writer_refused", 0},   {"", ~uint64_t{0}}};
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
    REQUIRE(w.ok());
    TraceSummary s{4000, 0, 0, {0, 0}, {}, drops};
    REQUIRE(w->finish(s).ok());
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->dropped == drops);
  CHECK(r->summary()->events_per_site == std::vector<uint64_t>{0, 0});
}

TEST_CASE("a function probe's frame leaves its arguments and comes back as Event::frame",
          "[trace_reader][frames]") {
  TempPath tmp;
  auto descriptor = [](const char* spec, bool frame) {
    ArgDescriptor a;
    a.spec = spec;
    a.location = usdt::ArgLocation::reg;
    a.source = usdt::ArgSource::sampled_register;
    a.is_frame = frame;
    return a;
  };
  std::vector<ProbeSite> sites(3);
  for (uint32_t i = 0; i < 3; ++i) {
    sites[i].id = i;
    sites[i].provider = "p";
    sites[i].name = "s" + std::to_string(i);
  }
  sites[0].args = {descriptor("8@%rdi", false)};
  sites[1].kind = ProbeKind::uprobe;
  sites[1].args = {descriptor("8@%rdi", false), descriptor("8@%rsp", true)};
  // The flag on a descriptor that is not the last means nothing.
  sites[2].args = {descriptor("8@%rsp", true), descriptor("8@%rsi", false)};
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
    REQUIRE(w.ok());
    REQUIRE(w->append(make_event(100, 1, 1, 1, 0, {5, 0x7ff0})).ok());
    REQUIRE(w->append(make_event(200, 1, 1, 1, 0, {6, 0}, 0b10)).ok());  // frame not recorded
    REQUIRE(w->append(make_event(300, 1, 1, 1, 0, {7})).ok());           // no frame argument
    REQUIRE(w->append(make_event(400, 0, 1, 1, 0, {8})).ok());
    REQUIRE(w->append(make_event(500, 2, 1, 1, 0, {9, 10})).ok());
    REQUIRE(w->append(make_event(600, 1, 1, 1, 0, {0, 0x7fe8}, 0b01)).ok());  // argument missing
    REQUIRE(w->finish(TraceSummary{}).ok());
  }
  // Decoded on the calling thread and on workers (drained, then replayed).
  ReaderOptions options;
  options.decode_threads = GENERATE(1u, 3u);
  auto r = TraceReader::open(tmp.str(), options);
  REQUIRE(r.ok());
  CHECK_FALSE(r->sites()[0].has_frame);
  CHECK(r->sites()[1].has_frame);
  REQUIRE(r->sites()[1].args.size() == 1);
  CHECK(r->sites()[1].args[0].spec == "8@%rdi");
  CHECK_FALSE(r->sites()[2].has_frame);
  REQUIRE(r->sites()[2].args.size() == 2);
  CHECK_FALSE(r->sites()[2].args[0].is_frame);
  std::vector<std::string> got;
  while (r->next()) {
    const Event& e = r->event();
    std::string line = std::to_string(e.time_ns) + " n=" + std::to_string(e.arg_count) +
                       " frame=" + std::to_string(e.frame);
    for (int i = 0; i < e.arg_count; ++i) line += e.has_arg(i) ? " " + std::to_string(e.args[i]) : " null";
    got.push_back(line);
  }
  std::vector<std::string> want = {"100 n=1 frame=32752 5", "200 n=1 frame=0 6", "300 n=1 frame=0 7",
                                   "400 n=1 frame=0 8",     "500 n=2 frame=0 9 10", "600 n=1 frame=32744 null"};
  CHECK(got == want);

  // A reader told that no argument is read still decodes them in a chunk
  // with frames: a function probe's return pairs by its frame.
  auto bare = TraceReader::open(tmp.str(), options);
  REQUIRE(bare.ok());
  ReadFilter f;
  f.arguments = false;
  bare->set_filter(f);
  std::vector<std::string> frames;
  while (bare->next()) frames.push_back(std::to_string(bare->event().frame));
  CHECK(frames == std::vector<std::string>{"32752", "0", "0", "0", "0", "32744"});
}
