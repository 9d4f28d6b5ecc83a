// Reading a trace while it is written (formats/trace_follower.h): the file
// grown byte by byte, blocks cut anywhere, gives, look after look, exactly
// the records of the finished file, each look's in time order; progress
// blocks say how far the file is complete; the summary ends the following.
#include "formats/trace_follower.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

Event event_at(uint64_t time, uint32_t site, uint64_t value) {
  Event e;
  e.time_ns = time;
  e.pid = 10;
  e.tid = 11;
  e.cpu = static_cast<uint32_t>(time % 2);
  e.site_id = site;
  e.arg_count = site == 1 ? 1 : 0;
  e.args[0] = value;
  return e;
}

// A trace of three flushes with a progress block after each, events of
// each flush reaching back before the previous flush's last (two CPUs
// drained at different moments), and a process event of each kind.
std::string written_trace(const std::string& path) {
  auto w = TraceWriter::create(path, sample_metadata(), sample_sites(2));
  REQUIRE(w.ok());
  uint64_t t = 1000;
  for (int flush = 0; flush < 3; ++flush) {
    for (int i = 0; i < 50; ++i, t += 10) {
      REQUIRE(w->append(event_at(t, static_cast<uint32_t>(i % 2), t)).ok());
    }
    REQUIRE(w->append(event_at(t - 600, 1, 7)).ok());  // older than some flushed before
    ProcessEvent p;
    p.time_ns = t - 5;
    p.kind = ProcessEventKind::pid_namespace;
    p.pid = 10;
    p.tid = 11;
    p.ns_pid = 1;
    p.ns_tid = 1;
    p.pid_namespace = 4026532000u + static_cast<uint64_t>(flush);
    REQUIRE(w->append(p).ok());
    w->note_complete_before(t - 700);
    REQUIRE(w->flush().ok());
  }
  TraceSummary s;
  s.end_monotonic_ns = t + 100;
  s.events = 153;
  s.armed_monotonic_ns = 900;
  s.attach_wait_ns = 12;
  REQUIRE(w->finish(s).ok());
  return read_file_bytes(path);
}

// Appends bytes to the followed file, as a writer would.
void grow(int fd, const std::string& bytes) {
  REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
}

std::vector<Record> take(FollowedChunks& chunks, StringKeeper& strings) {
  std::vector<Record> out;
  while (chunks.next()) {
    switch (chunks.kind()) {
      case RecordKind::event: out.emplace_back(strings.keep(chunks.event())); break;
      case RecordKind::process: out.emplace_back(chunks.process()); break;
      case RecordKind::lost: out.emplace_back(chunks.lost()); break;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a file followed as it grows gives the finished file's records", "[trace_follower]") {
  TempPath whole, followed;
  const std::string bytes = written_trace(whole.str());
  auto reader = TraceReader::open(whole.str());
  REQUIRE(reader.ok());
  StringKeeper strings;
  std::vector<Record> expected = read_all(*reader, &strings);
  REQUIRE(expected.size() == 156);

  // The start (header, metadata, probe table) first: what the recorder
  // writes at creation. Then the rest in pieces of every size in turn.
  const size_t start = bytes.find("UBLK\x03\x00");
  REQUIRE(start != std::string::npos);
  for (size_t piece : {1ul, 7ul, 64ul, 1000ul}) {
    INFO("pieces of " << piece << " bytes");
    int fd = ::open(followed.str().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    grow(fd, bytes.substr(0, start));
    auto f = TraceFollower::open(followed.str());
    REQUIRE(f.ok());
    CHECK(f->minor_version() == 8);
    std::vector<Record> got;
    uint64_t last_progress = 0;
    for (size_t at = start; !f->ended(); at += piece) {
      if (at < bytes.size()) grow(fd, bytes.substr(at, piece));
      REQUIRE(at < bytes.size() + piece);  // the summary comes
      auto look = f->look();
      REQUIRE(look.ok());
      std::vector<Record> records = take(*look, strings);
      for (size_t i = 1; i < records.size(); ++i) {
        CHECK(record_time(records[i - 1]) <= record_time(records[i]));
      }
      got.insert(got.end(), records.begin(), records.end());
      if (f->progress()) {
        CHECK(f->progress()->complete_before_ns >= last_progress);
        last_progress = f->progress()->complete_before_ns;
      }
    }
    ::close(fd);
    CHECK(last_progress == 1000 + 150 * 10 - 700);
    CHECK(f->progress()->next_within_ns == 1000000000u);  // the writer's flush interval
    REQUIRE(f->summary());
    CHECK(f->summary()->armed_monotonic_ns == 900);
    CHECK(f->summary()->attach_wait_ns == 12);
    CHECK(f->diagnostics().problems.empty());
    CHECK(f->diagnostics().chunks_read == 3);
    // The same records; merged across the looks by time they are the reader's.
    REQUIRE(got.size() == expected.size());
    std::stable_sort(got.begin(), got.end(), [](const Record& a, const Record& b) {
      return record_time(a) != record_time(b) ? record_time(a) < record_time(b)
                                              : record_rank(a) < record_rank(b);
    });
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("record " << i << ": " << describe(got[i]) << " / " << describe(expected[i]));
      CHECK(same(got[i], expected[i]));
    }
  }
}

TEST_CASE("a damaged block frame ends the following, with its offset", "[trace_follower]") {
  TempPath whole, followed;
  std::string bytes = written_trace(whole.str());
  const size_t second_chunk = bytes.find("UBLK\x03\x00", bytes.find("UBLK\x03\x00") + 1);
  REQUIRE(second_chunk != std::string::npos);
  bytes[second_chunk] = 'X';
  {
    int fd = ::open(followed.str().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    grow(fd, bytes);
    ::close(fd);
  }
  auto f = TraceFollower::open(followed.str());
  REQUIRE(f.ok());
  auto look = f->look();
  REQUIRE(look.ok());
  StringKeeper strings;
  CHECK(take(*look, strings).size() == 52);  // the first chunk's
  CHECK(f->stopped());
  CHECK_FALSE(f->ended());
  REQUIRE(f->diagnostics().problems.size() == 1);
  CHECK(f->diagnostics().problems[0].offset == second_chunk);
  auto again = f->look();  // nothing more, no error
  REQUIRE(again.ok());
  CHECK(again->chunk_count() == 0);
}

TEST_CASE("a file that is not a trace is refused at once", "[trace_follower]") {
  TempPath p;
  {
    int fd = ::open(p.str().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    grow(fd, "not a trace at all, just text\n");
    ::close(fd);
  }
  auto f = TraceFollower::open(p.str());
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message().find("not a usdt-trace file") != std::string::npos);
  CHECK_FALSE(TraceFollower::open("/nonexistent/x.trace").ok());
}
