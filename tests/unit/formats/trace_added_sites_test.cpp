// Probe sites added during a recording (format 1.4, block kind 7): written by
// TraceWriter::add_sites before the chunks with their events, read back with
// their activation time from the index or by a scan, and left out (with the
// chunks holding their events) when their block is damaged or out of order.
#include <catch2/catch.hpp>

#include "tests/unit/support/format_test_util.h"
#include "formats/byte_cursor.h"
#include "formats/file_layout.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

constexpr uint64_t kAttached = 5000;  // when the library's probes were attached

// Sites of a library dlopen()ed later: a USDT probe with a string and a
// number, and a uprobe whose last descriptor is the frame.
std::vector<ProbeSite> library_sites(uint32_t first_id) {
  std::vector<ProbeSite> out(2);
  out[0].id = first_id;
  out[0].path = "/usr/lib/libplugin.so";
  out[0].provider = "plugin";
  out[0].name = "load";
  out[0].args.resize(2);
  out[0].args[0].is_string = true;
  out[0].args[0].name = "name";
  out[0].args[1].is_signed = true;
  out[1].id = first_id + 1;
  out[1].kind = ProbeKind::uprobe;
  out[1].path = "/usr/lib/libplugin.so";
  out[1].provider = "uprobe";
  out[1].name = "plugin_run";
  out[1].args.resize(1);
  out[1].args[0].spec = "8@%rsp";
  out[1].args[0].is_frame = true;
  return out;
}

Event event_of(uint32_t site, uint64_t time, uint8_t args = 0) {
  Event e;
  e.time_ns = time;
  e.pid = 10;
  e.tid = 11;
  e.site_id = site;
  e.arg_count = args;
  for (int i = 0; i < args; ++i) e.args[i] = 40 + static_cast<uint64_t>(i);
  return e;
}

// The kinds and offsets of a file's blocks, in order, up to its trailer.
std::vector<uint16_t> block_kinds(const std::string& bytes, std::vector<uint64_t>* offsets) {
  std::vector<uint16_t> kinds;
  uint64_t at = kFileHeaderSize;
  while (bytes.size() - at >= kBlockHeaderSize) {
    ByteCursor in(std::string_view(bytes).substr(at));
    BlockHeader h = decode_block_header(in);
    if (h.sync != kBlockSync) break;
    kinds.push_back(h.kind);
    offsets->push_back(at);
    at += h.total_size();
  }
  return kinds;
}

// Two table sites (0: no argument, 1: one); chunk A with site 0 and 1
// events; the library's sites 2 and 3 added at kAttached while chunk B's
// site 0 event is still buffered; chunk B with events of sites 0, 2 and 3
// and a lost record of site 3; chunk C with a site 1 event only; the summary
// counting all four sites. Blocks: 1 2 3 7 3 3 4 5.
std::string write_trace(const std::string& path) {
  StringKeeper strings;
  auto w = TraceWriter::create(path, sample_metadata(), sample_sites(2));
  REQUIRE(w.ok());
  REQUIRE(w->append(event_of(0, 1000)).ok());
  REQUIRE(w->append(event_of(1, 1100, 1)).ok());
  REQUIRE(w->flush().ok());
  REQUIRE(w->append(event_of(0, 4000)).ok());
  // Not in the table yet: refused.
  CHECK_FALSE(w->append(event_of(2, 4500, 2)).ok());
  REQUIRE(w->add_sites(library_sites(2), kAttached).ok());
  Event load = event_of(2, 5100, 2);
  load.string_mask = 1;
  load.args[0] = strings.make("libplugin.so");
  load.args[1] = static_cast<uint64_t>(-3);
  REQUIRE(w->append(load).ok());
  Event run = event_of(3, 5200, 1);
  run.args[0] = 0x7ffff000;  // the frame
  REQUIRE(w->append_events({run}).ok());
  REQUIRE(w->append(LostEvent{5300, 5400, 0, 3, 2}).ok());
  REQUIRE(w->flush().ok());
  REQUIRE(w->append(event_of(1, 6000, 1)).ok());
  TraceSummary s;
  s.end_monotonic_ns = 7000;
  s.events = 6;
  s.lost = 2;
  s.events_per_site = {2, 2, 1, 1};
  s.lost_per_site = {0, 0, 0, 2};
  REQUIRE(w->finish(s).ok());
  return read_file_bytes(path);
}

struct Read {
  std::vector<Event> events;
  std::vector<LostEvent> lost;
  std::vector<std::string> strings;
};

Read read_events(TraceReader& r) {
  Read out;
  while (r.next()) {
    if (r.kind() == RecordKind::lost) out.lost.push_back(r.lost());
    if (r.kind() != RecordKind::event) continue;
    out.events.push_back(r.event());
    const Event& e = r.event();
    if (e.string_mask & 1) out.strings.emplace_back(e.string_arg(0).bytes);
  }
  return out;
}

void check_added_sites(const TraceReader& r) {
  REQUIRE(r.sites().size() == 4);
  CHECK(r.sites()[0].active_since_ns == 0);
  CHECK(r.sites()[1].active_since_ns == 0);
  const ProbeSite& load = r.sites()[2];
  CHECK(load.id == 2);
  CHECK(load.active_since_ns == kAttached);
  CHECK(load.provider == "plugin");
  CHECK(load.name == "load");
  REQUIRE(load.args.size() == 2);
  CHECK(load.args[0].is_string);
  CHECK(load.args[0].name == "name");
  const ProbeSite& run = r.sites()[3];
  CHECK(run.id == 3);
  CHECK(run.active_since_ns == kAttached);
  CHECK(run.has_frame);  // the frame left the arguments, as for table sites
  CHECK(run.args.empty());
}

void check_events(const Read& got) {
  REQUIRE(got.events.size() == 6);
  CHECK(got.events[2].site_id == 0);
  CHECK(got.events[3].site_id == 2);
  CHECK(got.events[3].time_ns == 5100);
  CHECK(static_cast<int64_t>(got.events[3].args[1]) == -3);
  REQUIRE(got.strings.size() == 1);
  CHECK(got.strings[0] == "libplugin.so");
  CHECK(got.events[4].site_id == 3);
  CHECK(got.events[4].arg_count == 0);
  CHECK(got.events[4].frame == 0x7ffff000);
  CHECK(got.events[5].site_id == 1);
  REQUIRE(got.lost.size() == 1);
  CHECK(got.lost[0].site_id == 3);
}

}  // namespace

TEST_CASE("added sites come before their chunks and read back, from the index or a scan",
          "[added_sites]") {
  TempPath tmp;
  const std::string bytes = write_trace(tmp.str());
  std::vector<uint64_t> offsets;
  REQUIRE(block_kinds(bytes, &offsets) == std::vector<uint16_t>{1, 2, 3, 7, 3, 3, 4, 5});
  CHECK(bytes[8] == 1);
  CHECK(bytes[10] >= 4);  // minor version 4 or later

  SECTION("a finished file lists the block in its index") {
    for (unsigned threads : {1u, 3u}) {
      INFO("decode threads " << threads);
      ReaderOptions options;
      options.decode_threads = threads;
      auto r = TraceReader::open(tmp.str(), options);
      REQUIRE(r.ok());
      check_added_sites(*r);
      REQUIRE(r->summary().has_value());
      CHECK(r->summary()->events_per_site == std::vector<uint64_t>{2, 2, 1, 1});
      CHECK(r->summary()->lost_per_site == std::vector<uint64_t>{0, 0, 0, 2});
      check_events(read_events(*r));
      CHECK(r->diagnostics().problems.empty());
      CHECK(r->diagnostics().records_skipped == 0);
      CHECK(r->diagnostics().chunks_read == 3);
    }
  }
  SECTION("a file cut before its footer finds the block by its scan") {
    auto r = TraceReader::open_bytes(bytes.substr(0, offsets[6]), "cut.trace");
    REQUIRE(r.ok());
    check_added_sites(*r);
    CHECK_FALSE(r->summary().has_value());
    CHECK(r->diagnostics().truncated);
    check_events(read_events(*r));
    CHECK(r->diagnostics().chunks_read == 3);
    CHECK(r->diagnostics().chunks_bad == 0);
  }
  SECTION("a scan (damaged trailer) reads the summary with the added sites' counts") {
    std::string b = bytes;
    b[b.size() - 1] ^= 0x20;  // the trailer's magic
    auto r = TraceReader::open_bytes(b, "trailer.trace");
    REQUIRE(r.ok());
    check_added_sites(*r);
    REQUIRE(r->summary().has_value());
    CHECK(r->summary()->events_per_site == std::vector<uint64_t>{2, 2, 1, 1});
  }
  SECTION("a filter on an added site skips the other chunks") {
    auto r = TraceReader::open(tmp.str());
    REQUIRE(r.ok());
    ReadFilter f;
    f.site_ids = {3};
    r->set_filter(f);
    Read got = read_events(*r);
    REQUIRE(got.events.size() == 1);
    CHECK(got.events[0].site_id == 3);
  }
}

TEST_CASE("add_sites refuses ids that do not continue, and is not sticky", "[added_sites]") {
  TempPath tmp;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
  REQUIRE(w.ok());
  usdt::Status s = w->add_sites(library_sites(3), 100);  // site 2 is next
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message().find("probe site 2 has id 3 (ids must be 2..3 in order)") !=
        std::string::npos);
  CHECK_FALSE(w->add_sites(library_sites(1), 100).ok());
  std::vector<ProbeSite> many = library_sites(2);
  many[1].args.resize(kMaxArgs + 1);
  CHECK_FALSE(w->add_sites(many, 100).ok());
  // Nothing was written, nothing is known of them.
  CHECK_FALSE(w->append(event_of(2, 200)).ok());
  CHECK(w->add_sites({}, 100).ok());  // nothing to add: no block

  REQUIRE(w->add_sites(library_sites(2), 300).ok());
  REQUIRE(w->append(event_of(3, 400)).ok());
  CHECK_FALSE(w->append(event_of(4, 400)).ok());
  CHECK_FALSE(w->append(event_of(3, 400, 2)).ok());  // site 3 has one argument
  Event wrong_strings = event_of(2, 400, 2);
  CHECK_FALSE(w->append(wrong_strings).ok());  // argument 0 of site 2 is a string
  std::vector<ProbeSite> next = library_sites(4);
  REQUIRE(w->add_sites(next, 500).ok());
  REQUIRE(w->append(event_of(5, 600, 1)).ok());
  REQUIRE(w->finish({}).ok());
  CHECK_FALSE(w->add_sites(library_sites(6), 700).ok());  // finished

  std::vector<uint64_t> offsets;
  CHECK(block_kinds(read_file_bytes(tmp.str()), &offsets) ==
        std::vector<uint16_t>{1, 2, 7, 7, 3, 4, 5});
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  REQUIRE(r->sites().size() == 6);
  CHECK(r->sites()[3].active_since_ns == 300);
  CHECK(r->sites()[4].active_since_ns == 500);
  CHECK(r->sites()[5].id == 5);
  Read got = read_events(*r);
  REQUIRE(got.events.size() == 2);
  CHECK(got.events[1].site_id == 5);
  CHECK(r->diagnostics().problems.empty());
}

TEST_CASE("a damaged added sites block is reported and left out with its sites' chunks",
          "[added_sites]") {
  TempPath tmp;
  const std::string bytes = write_trace(tmp.str());
  std::vector<uint64_t> offsets;
  REQUIRE(block_kinds(bytes, &offsets) == std::vector<uint16_t>{1, 2, 3, 7, 3, 3, 4, 5});
  std::string damaged = bytes;
  damaged[offsets[4] - 6] ^= 0x40;  // inside the kind 7 block's zstd frame
  for (bool footer : {true, false}) {
    INFO("footer " << footer);
    auto r = TraceReader::open_bytes(footer ? damaged : damaged.substr(0, offsets[6]), "d.trace");
    REQUIRE(r.ok());
    CHECK(r->sites().size() == 2);
    Read got = read_events(*r);
    // Chunk B (events of sites 2 and 3) is damaged; chunks A and C read.
    REQUIRE(got.events.size() == 3);
    CHECK(got.events[0].time_ns == 1000);
    CHECK(got.events[1].time_ns == 1100);
    CHECK(got.events[2].time_ns == 6000);
    CHECK(r->diagnostics().chunks_read == 2);
    CHECK(r->diagnostics().chunks_bad == 1);
    bool block_reported = false, chunk_reported = false;
    for (const auto& p : r->diagnostics().problems) {
      block_reported |= p.offset == offsets[3];
      chunk_reported |= p.offset == offsets[4];
    }
    CHECK(block_reported);
    CHECK(chunk_reported);
    if (footer) {
      // The summary still reads, without the counts of the sites left out.
      REQUIRE(r->summary().has_value());
      CHECK(r->summary()->events_per_site == std::vector<uint64_t>{2, 2});
    }
  }
}

TEST_CASE("an added sites block whose ids do not continue is left out, and so are later ones",
          "[added_sites]") {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    REQUIRE(w->add_sites(library_sites(1), 100).ok());  // sites 1, 2
    REQUIRE(w->append(event_of(1, 150)).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->add_sites(library_sites(3), 200).ok());  // sites 3, 4
    REQUIRE(w->append(event_of(4, 250)).ok());
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(event_of(0, 300)).ok());
    REQUIRE(w->flush().ok());
  }
  const std::string bytes = read_file_bytes(tmp.str());
  std::vector<uint64_t> offsets;
  REQUIRE(block_kinds(bytes, &offsets) == std::vector<uint16_t>{1, 2, 7, 3, 7, 3, 3});

  SECTION("the first block missing: the second's ids start at 3, not 1") {
    std::string cut = bytes;
    cut.erase(offsets[2], offsets[3] - offsets[2]);
    auto r = TraceReader::open_bytes(cut, "gap.trace");
    REQUIRE(r.ok());
    CHECK(r->sites().size() == 1);
    bool reported = false;
    for (const auto& p : r->diagnostics().problems) {
      reported |= p.message.find("does not continue the 1 sites before it") != std::string::npos;
    }
    CHECK(reported);
    Read got = read_events(*r);
    REQUIRE(got.events.size() == 1);
    CHECK(got.events[0].site_id == 0);
    CHECK(r->diagnostics().chunks_bad == 2);
  }
  SECTION("the first block damaged: the second is left out too") {
    std::string b = bytes;
    b[offsets[3] - 6] ^= 0x40;
    auto r = TraceReader::open_bytes(b, "damaged.trace");
    REQUIRE(r.ok());
    CHECK(r->sites().size() == 1);
    CHECK(read_events(*r).events.size() == 1);
    CHECK(r->diagnostics().chunks_bad == 2);
  }
  SECTION("intact, a scan reads both") {
    auto r = TraceReader::open_bytes(bytes, "whole.trace");
    REQUIRE(r.ok());
    REQUIRE(r->sites().size() == 5);
    CHECK(r->sites()[2].active_since_ns == 100);
    CHECK(r->sites()[4].active_since_ns == 200);
    CHECK(read_events(*r).events.size() == 3);
  }
}

TEST_CASE("an added sites block cut at every length or with any bit flipped never crashes",
          "[added_sites]") {
  TempPath tmp;
  const std::string bytes = write_trace(tmp.str());
  std::vector<uint64_t> offsets;
  REQUIRE(block_kinds(bytes, &offsets).size() == 8);
  for (uint64_t at = offsets[3]; at < offsets[4]; ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      INFO("byte " << at << " bit " << bit);
      std::string b = bytes;
      b[at] = static_cast<char>(b[at] ^ (1 << bit));
      for (bool footer : {true, false}) {
        auto r = TraceReader::open_bytes(footer ? b : b.substr(0, offsets[6]), "flip.trace");
        REQUIRE(r.ok());
        Read got = read_events(*r);
        // Either the block read (all six events) or it and chunk B are
        // lost (and, in a scan, what follows a frame damaged into an index).
        if (r->sites().size() == 4) {
          CHECK(got.events.size() == 6);
        } else {
          CHECK(r->sites().size() == 2);
          CHECK(got.events.size() <= 3);
        }
        for (const Event& e : got.events) CHECK(e.site_id < r->sites().size());
      }
    }
  }
  for (uint64_t cut = offsets[3]; cut < offsets[4]; ++cut) {
    auto r = TraceReader::open_bytes(bytes.substr(0, cut), "cut.trace");
    REQUIRE(r.ok());
    CHECK(r->sites().size() == 2);
    CHECK(read_events(*r).events.size() == 2);
    CHECK(r->diagnostics().truncated);
  }
}
