#include "formats/trace_writer.h"

#include <catch2/catch.hpp>

#include "tests/unit/support/format_test_util.h"
#include "formats/trace_reader.h"

using namespace usdt::format;
using namespace usdt::format::test;

TEST_CASE("the writer refuses records the probe table cannot describe", "[trace_writer]") {
  TempPath tmp;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3));
  REQUIRE(w.ok());
  Event e;
  e.site_id = 3;
  auto s = w->append(e);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() ==
        "cannot write an event of probe site 3: the probe table has 3 sites");
  e.site_id = 1;
  e.arg_count = 2;
  s = w->append(e);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "cannot write an event with 2 arguments: probe site 1 has 1");
  LostEvent l;
  l.site_id = 9;
  CHECK_FALSE(w->append(l).ok());
  // Such refusals are not sticky.
  e.arg_count = 1;
  CHECK(w->append(e).ok());
  CHECK(w->finish(TraceSummary{}).ok());
  CHECK_FALSE(w->append(e).ok());  // after finish
}

TEST_CASE("the writer refuses a probe table with ids out of order", "[trace_writer]") {
  TempPath tmp;
  auto sites = sample_sites(3);
  sites[1].id = 7;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message().find("probe site 1 has id 7") != std::string::npos);
}

TEST_CASE("create fails with the path when the file cannot be created", "[trace_writer]") {
  auto w = TraceWriter::create("/nonexistent/dir/x.trace", sample_metadata(), sample_sites(1));
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message() == "cannot open '/nonexistent/dir/x.trace': No such file or directory");
}

TEST_CASE("a writer dropped without finish leaves a readable, truncated trace", "[trace_writer]") {
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
    REQUIRE(w.ok());
    Event e;
    e.site_id = 1;
    e.arg_count = 1;
    for (int i = 0; i < 10; ++i) {
      e.time_ns = 100 + static_cast<uint64_t>(i);
      e.args[0] = static_cast<uint64_t>(i);
      REQUIRE(w->append(e).ok());
    }
    CHECK(w->events_written() == 0);  // still buffered
  }
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  CHECK(read_all(*r).size() == 10);
  CHECK(r->diagnostics().truncated);
  CHECK_FALSE(r->summary().has_value());
  REQUIRE(r->diagnostics().problems.size() == 1);
  CHECK(r->diagnostics().problems[0].message.find("without its footer") != std::string::npos);
}

TEST_CASE("bytes_written and events_written count what reached the file", "[trace_writer]") {
  TempPath tmp;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
  REQUIRE(w.ok());
  uint64_t start = w->bytes_written();
  CHECK(start == read_file_bytes(tmp.str()).size());
  Event e;
  e.site_id = 0;
  REQUIRE(w->append(e).ok());
  REQUIRE(w->append(ProcessEvent{}).ok());
  REQUIRE(w->flush().ok());
  CHECK(w->events_written() == 1);
  CHECK(w->bytes_written() > start);
  CHECK(w->bytes_written() == read_file_bytes(tmp.str()).size());
  REQUIRE(w->finish(TraceSummary{}).ok());
  CHECK(w->bytes_written() == read_file_bytes(tmp.str()).size());
}

TEST_CASE("a chunk older than the flush interval is flushed by the next appends",
          "[trace_writer]") {
  TempPath tmp;
  WriterOptions opt;
  opt.flush_interval_ms = 1;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1), opt);
  REQUIRE(w.ok());
  Event e;
  REQUIRE(w->append(e).ok());
  usleep(5000);
  for (int i = 0; i < 255; ++i) REQUIRE(w->append(e).ok());
  CHECK(w->events_written() == 256);

  WriterOptions never;
  never.flush_interval_ms = 0;
  TempPath tmp2;
  auto w2 = TraceWriter::create(tmp2.str(), sample_metadata(), sample_sites(1), never);
  REQUIRE(w2.ok());
  REQUIRE(w2->append(e).ok());
  usleep(5000);
  for (int i = 0; i < 255; ++i) REQUIRE(w2->append(e).ok());
  CHECK(w2->events_written() == 0);
}

TEST_CASE("the writer refuses an event whose string mask disagrees with its site",
          "[trace_writer][strings]") {
  TempPath tmp;
  auto sites = sample_sites(3);
  sites[2].args[1].is_string = true;  // site 2: a number, then a string
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sites);
  REQUIRE(w.ok());
  StringArg text{"text"};
  Event e;
  e.site_id = 2;
  e.arg_count = 2;
  e.args[0] = 5;
  e.args[1] = reinterpret_cast<uint64_t>(&text);
  SECTION("the string not marked") {
    e.string_mask = 0;
    auto s = w->append(e);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message() ==
          "cannot write an event of probe site 2: its string arguments (mask 0x0) are not "
          "those of the site (mask 0x2)");
  }
  SECTION("a number marked as a string") {
    e.string_mask = 0b11;
    CHECK_FALSE(w->append(e).ok());
  }
  SECTION("in a batch: the events before it are kept") {
    Event good = e;
    good.string_mask = 0b10;
    Event bad = e;
    bad.string_mask = 0b01;
    auto s = w->append_events({good, bad, good});
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message().find("mask 0x1") != std::string::npos);
  }
  // Not sticky; bits at or above arg_count do not matter.
  e.string_mask = 0b10;
  CHECK(w->append(e).ok());
  e.arg_count = 1;
  e.string_mask = 0b110;
  CHECK(w->append(e).ok());
  REQUIRE(w->finish(TraceSummary{}).ok());
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  std::vector<std::string> got;
  while (r->next()) {
    const Event& ev = r->event();
    got.push_back(std::to_string(ev.arg_count) + " " + std::to_string(ev.string_mask) +
                  (ev.arg_count == 2 ? " " + std::string(ev.string_arg(1).bytes) : ""));
  }
  std::vector<std::string> want = {"2 2 text", "1 0"};
  if (got.size() == 3) want.insert(want.begin(), "2 2 text");  // the batch's first event
  CHECK(got == want);
}
