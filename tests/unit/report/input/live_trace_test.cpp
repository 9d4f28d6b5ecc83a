// A trace read while it is written (report/input/live_trace.h): the records
// come below the time the progress blocks say the file is complete up to, in
// time order, the later ones at a later poll; an event placed after its
// time counts as late; the end brings the rest and the file's summary.
#include "report/input/live_trace.h"

#include <catch2/catch.hpp>
#include <vector>

#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt;
using namespace usdt::report;
using format::test::TempPath;

namespace {

format::Event event_at(uint64_t time) {
  format::Event e;
  e.time_ns = time;
  e.pid = 10;
  e.tid = 10;
  e.site_id = 0;
  return e;
}

// The times of the records next() gives now.
std::vector<uint64_t> times(LiveTrace& live) {
  std::vector<uint64_t> out;
  Record r;
  while (live.next(r)) out.push_back(r.time);
  return out;
}

}  // namespace

TEST_CASE("a live trace gives the records below the progress, in order, the rest later",
          "[live_trace]") {
  TempPath path;
  auto w = format::TraceWriter::create(path.str(), format::test::sample_metadata(),
                                       format::test::sample_sites(1));
  REQUIRE(w.ok());
  auto live = LiveTrace::open(path.str());
  REQUIRE(live.ok());
  LiveTrace& t = **live;
  CHECK(t.ordered());
  CHECK(t.complete_before() == 0);
  CHECK(times(t).empty());

  // Flushed, but the recorder vouches only for what is before 2000.
  for (uint64_t time : {1000, 3000, 1500, 2500}) REQUIRE(w->append(event_at(time)).ok());
  w->note_complete_before(2000);
  REQUIRE(w->flush().ok());
  auto news = t.poll();
  REQUIRE(news.ok());
  CHECK(*news);
  CHECK(t.complete_before() == 2000);
  CHECK(times(t) == std::vector<uint64_t>{1000, 1500});

  // The next flush holds one older than 2500, which waited: merged in order.
  for (uint64_t time : {2200, 4000}) REQUIRE(w->append(event_at(time)).ok());
  w->note_complete_before(3500);
  REQUIRE(w->flush().ok());
  REQUIRE(t.poll().ok());
  CHECK(times(t) == std::vector<uint64_t>{2200, 2500, 3000});
  CHECK(t.late_events() == 0);

  // One the recorder placed after its time (below 3500): it comes, late.
  REQUIRE(w->append(event_at(3400)).ok());
  w->note_complete_before(3600);
  REQUIRE(w->flush().ok());
  REQUIRE(t.poll().ok());
  CHECK(times(t) == std::vector<uint64_t>{3400});
  CHECK(t.late_events() == 1);
  CHECK_FALSE(t.ended());

  // Nothing new: no news, nothing to read.
  auto quiet = t.poll();
  REQUIRE(quiet.ok());
  CHECK_FALSE(*quiet);

  format::TraceSummary s;
  s.end_monotonic_ns = 5000;
  s.events = 7;
  REQUIRE(w->finish(s).ok());
  REQUIRE(t.poll().ok());
  CHECK(t.ended());
  CHECK(t.complete_before() == UINT64_MAX);
  CHECK(times(t) == std::vector<uint64_t>{4000});
  REQUIRE(t.files().front().summary);
  CHECK(t.files().front().summary->end_monotonic_ns == 5000);
  CHECK(t.files().front().read_to_end);
}

TEST_CASE("probe sites added while a trace is followed extend its catalog", "[live_trace]") {
  TempPath path;
  auto w = format::TraceWriter::create(path.str(), format::test::sample_metadata(),
                                       format::test::sample_sites(1));
  REQUIRE(w.ok());
  auto live = LiveTrace::open(path.str());
  REQUIRE(live.ok());
  const uint64_t version = (*live)->sites_version();
  format::ProbeSite added;
  added.id = 1;
  added.provider = "plugin";
  added.name = "load";
  REQUIRE(w->add_sites({added}, 1200).ok());
  format::Event e = event_at(1300);
  e.site_id = 1;
  REQUIRE(w->append(e).ok());
  w->note_complete_before(2000);
  REQUIRE(w->flush().ok());
  REQUIRE((*live)->poll().ok());
  CHECK((*live)->sites_version() != version);
  REQUIRE((*live)->catalog().site_count() == 2);
  CHECK((*live)->catalog().probe_of_site(1).full_name == "plugin:load");
  Record r;
  REQUIRE((*live)->next(r));
  CHECK((*live)->catalog().global_site(0, r.event->site_id) == 1);
}
