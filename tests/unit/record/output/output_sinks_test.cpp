// The outputs a recording writes through (record/output/): a series that
// switches files by size and on request, keeps the newest files and carries
// the thread names; a flight recorder whose snapshots hold exactly their
// window; triggers that pair starts and ends taken out of order. Fed with
// batches as the drain loop queues them, read back with the trace reader.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "formats/trace_reader.h"
#include "record/output/flight_sink.h"
#include "record/output/series_sink.h"

namespace fmt = usdt::format;
using namespace usdt::record;

namespace {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    path = "/tmp/usdt_output_sinks_test_" + std::to_string(::getpid());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Two sites: app:req_start(id) and app:req_done(id).
RecordingFiles files_in(const std::string& dir) {
  RecordingFiles f;
  f.metadata.hostname = "h";
  f.metadata.start_monotonic_ns = 10;
  f.metadata.start_realtime_ns = 1000010;
  for (uint32_t i = 0; i < 2; ++i) {
    fmt::ProbeSite s;
    s.id = i;
    s.provider = "app";
    s.name = i == 0 ? "req_start" : "req_done";
    s.args.resize(1);
    f.sites.push_back(s);
  }
  f.writer_options.chunk_bytes = 256;
  f.output = dir + "/out.trace";
  f.recording_id = "0123456789abcdef0123456789abcdef";
  return f;
}

fmt::Event event(uint32_t site, uint64_t time, uint64_t id, uint32_t tid = 7) {
  fmt::Event e;
  e.time_ns = time;
  e.pid = 7;
  e.tid = tid;
  e.site_id = site;
  e.arg_count = 1;
  e.args[0] = id;
  return e;
}

// Events of site 0 at times first, first + 1, ... (ids the same).
EventBatch ticks(uint64_t first, uint64_t n, uint64_t drained_through = 0) {
  EventBatch b;
  for (uint64_t t = first; t < first + n; ++t) b.add(event(0, t, t));
  b.drained_through_ns = drained_through;
  return b;
}

struct Read {
  fmt::TraceMetadata metadata;
  std::vector<uint64_t> times;     // of the events
  std::vector<std::string> names;  // comm records
  bool complete = false;
};

Read read(const std::string& path) {
  Read r;
  auto reader = fmt::TraceReader::open(path);
  INFO(path);
  REQUIRE(reader);
  r.metadata = reader->metadata();
  while (reader->next()) {
    if (reader->kind() == fmt::RecordKind::event) r.times.push_back(reader->event().time_ns);
    if (reader->kind() == fmt::RecordKind::process) r.names.push_back(reader->process().comm);
  }
  r.complete = reader->summary().has_value() && !reader->diagnostics().truncated;
  return r;
}

fmt::TraceSummary end_at(uint64_t ns) {
  fmt::TraceSummary s;
  s.end_monotonic_ns = ns;
  return s;
}

}  // namespace

TEST_CASE("a series switches on request and carries the thread names", "[output_sinks]") {
  ScratchDir dir;
  OutputPolicy policy;
  policy.switch_output.kind = SwitchKind::signal;
  auto sink = SeriesSink::create(files_in(dir.path), policy);
  REQUIRE(sink);
  (*sink)->set_enabled_ns(50);
  EventBatch first = ticks(1000, 10);
  fmt::ProcessEvent comm;
  comm.time_ns = 999;
  comm.pid = comm.tid = 7;
  comm.comm = "server";
  first.processes.push_back(comm);
  REQUIRE((*sink)->write(first));
  EventBatch ask;
  ask.requests.push_back(OutputRequest{OutputRequest::Kind::switch_file, "signal", 1500});
  REQUIRE((*sink)->write(ask));
  REQUIRE((*sink)->write(ticks(2000, 5)));
  REQUIRE((*sink)->finish(end_at(3000), {}));
  CHECK((*sink)->finished());
  Read one = read(dir.path + "/out.0001.trace");
  Read two = read(dir.path + "/out.0002.trace");
  CHECK(one.complete);
  CHECK(two.complete);
  CHECK(one.times.size() == 10);
  CHECK(two.times.size() == 5);
  CHECK(one.metadata.series.sequence == 1);
  CHECK(two.metadata.series.sequence == 2);
  CHECK(two.metadata.series.role == fmt::FileRole::part);
  // Part 2 names the thread of part 1, just before its first record.
  CHECK(two.metadata.series.carried_ns == 1999);
  CHECK(two.metadata.start_monotonic_ns == 1999);
  CHECK(two.names == std::vector<std::string>{"server"});
  CHECK(std::filesystem::directory_iterator(dir.path) != std::filesystem::directory_iterator());
  CHECK_FALSE(std::filesystem::exists(dir.path + "/out.0003.trace"));
}

TEST_CASE("a series switches by size and keeps the newest files", "[output_sinks]") {
  ScratchDir dir;
  OutputPolicy policy;
  policy.switch_output.kind = SwitchKind::size;
  policy.switch_output.bytes = 1;  // every file is full at once
  policy.max_files = 2;
  auto sink = SeriesSink::create(files_in(dir.path), policy);
  REQUIRE(sink);
  for (uint64_t k = 0; k < 4; ++k) REQUIRE((*sink)->write(ticks(1000 * (k + 1), 3)));
  REQUIRE((*sink)->finish(end_at(9000), {}));
  CHECK_FALSE(std::filesystem::exists(dir.path + "/out.0001.trace"));
  CHECK_FALSE(std::filesystem::exists(dir.path + "/out.0002.trace"));
  CHECK(read(dir.path + "/out.0003.trace").times == std::vector<uint64_t>{3000, 3001, 3002});
  CHECK(read(dir.path + "/out.0004.trace").times == std::vector<uint64_t>{4000, 4001, 4002});
  const OutputReport r = (*sink)->report();
  REQUIRE(r.lines.size() == 1);
  CHECK(r.lines[0] == "4 files written, the oldest 2 deleted (--max-files 2)");
}

TEST_CASE("a flight-recorder snapshot holds exactly its window", "[output_sinks]") {
  ScratchDir dir;
  OutputPolicy policy;
  policy.flight.enabled = true;
  policy.flight.bytes = 1024;  // a few chunks of 256 bytes of payload
  policy.flight.exit_snapshot = false;
  auto sink = FlightSink::create(files_in(dir.path), policy);
  REQUIRE(sink);
  (*sink)->set_enabled_ns(100);
  // 5000 events, far more than the ring holds; the snapshot asked at 5990
  // holds those up to it, after the ring's horizon.
  for (uint64_t k = 0; k < 50; ++k) REQUIRE((*sink)->write(ticks(1000 + k * 100, 100)));
  EventBatch ask;
  ask.requests.push_back(OutputRequest{OutputRequest::Kind::snapshot, "signal", 5990});
  // And one of a time the memory no longer holds.
  ask.requests.push_back(OutputRequest{OutputRequest::Kind::snapshot, "control", 1500});
  REQUIRE((*sink)->write(ask));
  REQUIRE((*sink)->finish(end_at(7000), {}));
  Read snap = read(dir.path + "/out.0001.trace");
  CHECK(snap.complete);
  const fmt::SeriesInfo& s = snap.metadata.series;
  CHECK(s.role == fmt::FileRole::snapshot);
  CHECK(s.trigger == "signal");
  CHECK(s.window_end_ns == 5990);
  REQUIRE(s.window_begin_ns > 1000);  // the ring was full
  REQUIRE(s.window_begin_ns < 5990);
  REQUIRE(!snap.times.empty());
  // Every event of the window, once, and none outside it.
  CHECK(snap.times.front() == s.window_begin_ns);
  CHECK(snap.times.back() == 5990);
  CHECK(snap.times.size() == 5990 - s.window_begin_ns + 1);
  for (size_t i = 1; i < snap.times.size(); ++i) CHECK(snap.times[i] == snap.times[i - 1] + 1);
  // A window the memory no longer holds: an empty snapshot that says so.
  Read gone = read(dir.path + "/out.0002.trace");
  CHECK(gone.complete);
  CHECK(gone.times.empty());
  CHECK(gone.metadata.series.window_end_ns < gone.metadata.series.window_begin_ns);
}

TEST_CASE("a latency trigger pairs events taken out of order, once they are complete",
          "[output_sinks]") {
  ScratchDir dir;
  OutputPolicy policy;
  policy.flight.enabled = true;
  policy.flight.bytes = 1 << 20;
  policy.flight.exit_snapshot = false;
  auto trigger = parse_trigger("latency app:req_start app:req_done > 1us --key arg0");
  REQUIRE(trigger);
  policy.triggers.push_back(*trigger);
  policy.before_ns = 100;
  policy.after_ns = 50;
  policy.max_snapshots = 1;
  auto sink = FlightSink::create(files_in(dir.path), policy);
  REQUIRE(sink);
  (*sink)->set_enabled_ns(100);
  // The end of request 5 (another thread, another CPU's buffer) comes
  // before its start; a quick request 6; then request 7, slow too: the
  // rate limit suppresses it.
  EventBatch ends;
  ends.add(event(1, 4000, 5, 8));
  ends.add(event(1, 4210, 6, 9));
  REQUIRE((*sink)->write(ends));
  EventBatch starts;
  starts.add(event(0, 2000, 5));
  starts.add(event(0, 4200, 6));
  starts.add(event(0, 5000, 7));
  starts.add(event(1, 9000, 7));
  starts.drained_through_ns = 4100;  // everything before 4100 has come
  REQUIRE((*sink)->write(starts));
  EventBatch later = ticks(4300, 10, 20000);
  REQUIRE((*sink)->write(later));
  REQUIRE((*sink)->finish(end_at(30000), {}));
  Read snap = read(dir.path + "/out.0001.trace");
  CHECK_FALSE(std::filesystem::exists(dir.path + "/out.0002.trace"));
  const fmt::SeriesInfo& s = snap.metadata.series;
  CHECK(s.trigger == "latency app:req_start app:req_done > 1us --key arg0");
  CHECK(s.trigger_site == 1);
  CHECK(s.trigger_time_ns == 4000);
  CHECK(s.trigger_start_ns == 2000);
  CHECK(s.trigger_tid == 8);
  CHECK(s.window_begin_ns == 1900);
  CHECK(s.window_end_ns == 4050);
  CHECK(snap.times == std::vector<uint64_t>{2000, 4000});
  const OutputReport r = (*sink)->report();
  bool said = false;
  for (const std::string& line : r.lines) {
    said = said || line.find("fired 2 times: 1 snapshots, 1 suppressed (1 by --max-snapshots") !=
                       std::string::npos;
  }
  CHECK(said);
}
