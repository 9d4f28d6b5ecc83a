// --flight-recorder: snapshots on SIGUSR2, through the control FIFO and at
// the end; triggers on a slow request; the rate limit; SIGKILL in the middle
// of a snapshot. Real recordings of itest_requests, whose ticks and requests
// are numbered: a snapshot must hold a contiguous run of them.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "always_on_support.h"
#include "formats/trace_reader.h"
#include "integration_support.h"

using namespace usdt::itest;
using usdt::format::FileRole;

namespace {

// Sends a command to itest_requests (through the recorder's stdin) and
// waits for its answer.
void command(Process& p, const std::string& line, const std::string& answer) {
  p.write_line(line);
  std::optional<std::string> got = p.read_line();
  REQUIRE(got.has_value());
  REQUIRE(got->find(answer) == 0);
}

// The ticks of a snapshot: contiguous, ending at last.
void check_newest_ticks(const std::string& path, uint64_t last) {
  INFO(path);
  Trace t = read_trace(path);
  CHECK_FALSE(t.truncated);
  REQUIRE(t.summary.has_value());
  CHECK(t.summary->events == t.events.size());
  CHECK(t.lost_count() == 0);
  std::vector<uint64_t> ticks = first_args({path}, "itest", "tick");
  REQUIRE(!ticks.empty());
  CHECK(ticks.back() == last);
  CHECK(ticks.back() - ticks.front() + 1 == ticks.size());  // no gap, none twice
  // Its window holds them, and begins where the ring's memory does.
  const usdt::format::SeriesInfo s = metadata_of(path).series;
  CHECK(s.role == FileRole::snapshot);
  for (const usdt::format::Event& e : t.events) {
    CHECK(e.time_ns >= s.window_begin_ns);
    CHECK(e.time_ns <= s.window_end_ns);
  }
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

TEST_CASE("flight recorder snapshots hold exactly the newest events: signal, FIFO, exit",
          "[.root][flight_snapshots]") {
  const std::string dir = temp_dir("flight");
  const std::string out = dir + "/fr.trace";
  const std::string fifo = dir + "/control";
  Process rec = Process::start(
      {recorder(), "--buffer-pages", "8192", "-e", "itest:tick", "-o", out, "--flight-recorder",
       "128K", "--control", "fifo:" + fifo, "--", program("itest_requests")},
      true, true, true);
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  REQUIRE(rec.wait_for_stderr("recording"));
  // 500000 ticks: some 1.2 MB compressed, ten times the ring.
  for (int i = 1; i <= 5; ++i) command(rec, "tick 100000", "ticked " + std::to_string(i * 100000));
  rec.signal(SIGUSR2);
  REQUIRE(wait_for_file(dir + "/fr.0001.trace"));
  check_newest_ticks(dir + "/fr.0001.trace", 499999);
  const std::vector<uint64_t> first = first_args({dir + "/fr.0001.trace"}, "itest", "tick");
  CHECK(first.front() > 0);  // the ring was full
  CHECK(std::filesystem::file_size(dir + "/fr.0001.trace") < 160 * 1024);
  CHECK(metadata_of(dir + "/fr.0001.trace").series.trigger == "signal");
  // A second one, right after some more.
  command(rec, "tick 1000", "ticked 501000");
  rec.signal(SIGUSR2);
  REQUIRE(wait_for_file(dir + "/fr.0002.trace"));
  check_newest_ticks(dir + "/fr.0002.trace", 500999);
  // Through the control FIFO.
  command(rec, "tick 10", "ticked 501010");
  {
    std::ofstream control(fifo);
    control << "snapshot\n";
  }
  REQUIRE(wait_for_file(dir + "/fr.0003.trace"));
  check_newest_ticks(dir + "/fr.0003.trace", 501009);
  CHECK(metadata_of(dir + "/fr.0003.trace").series.trigger == "control");
  // And at the end.
  command(rec, "tick 5", "ticked 501015");
  rec.close_stdin();
  std::string err = rec.read_rest(true);
  INFO(err);
  CHECK(rec.wait() == 0);
  REQUIRE(wait_for_file(dir + "/fr.0004.trace", std::chrono::seconds(1)));
  check_newest_ticks(dir + "/fr.0004.trace", 501014);
  CHECK(metadata_of(dir + "/fr.0004.trace").series.trigger == "exit");
  CHECK(files_in(dir, ".trace").size() == 4);
  CHECK(err.find("501015 events recorded") != std::string::npos);
  CHECK(err.find("events overwritten before any snapshot saved them") != std::string::npos);
  CHECK(err.find("snapshot " + dir + "/fr.0001.trace (signal)") != std::string::npos);
  CHECK(!std::filesystem::exists(fifo));  // made by the recorder, removed by it
}

TEST_CASE("a latency trigger takes exactly one snapshot holding the slow request and its window",
          "[.root][flight_trigger]") {
  const std::string dir = temp_dir("trigger");
  const std::string trigger = "latency itest:req_start itest:req_done > 100ms --key arg0";
  // 40000 requests, request 20000 slow (300 ms): the 20000 before it take
  // far longer than the 20 ms window before it; then 5000 quick ones.
  RunResult r = run({recorder(),
                     "--buffer-pages",
                     "8192",
                     "-e",
                     "itest:req_*",
                     "-o",
                     dir + "/slow.trace",
                     "--flight-recorder",
                     "64M",
                     "--snapshot-on",
                     trigger,
                     "--before",
                     "20ms",
                     "--after",
                     "20ms",
                     "--no-exit-snapshot",
                     "--",
                     program("itest_requests"),
                     "requests 40000 20000 300",
                     "requests 5000 -1 0"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(files_in(dir, ".trace") == std::vector<std::string>{dir + "/slow.0001.trace"});
  const std::string snap = dir + "/slow.0001.trace";
  const usdt::format::SeriesInfo s = metadata_of(snap).series;
  Trace t = read_trace(snap);
  CHECK_FALSE(t.truncated);
  CHECK(s.trigger == trigger);
  // The pair that fired it, named in the metadata.
  const std::vector<usdt::format::Event> starts = t.of("itest", "req_start");
  const std::vector<usdt::format::Event> dones = t.of("itest", "req_done");
  auto find = [](const std::vector<usdt::format::Event>& events, uint64_t r) {
    return std::find_if(events.begin(), events.end(),
                        [r](const usdt::format::Event& e) { return e.args[0] == r; });
  };
  auto start = find(starts, 20000);
  auto done = find(dones, 20000);
  REQUIRE(start != starts.end());
  REQUIRE(done != dones.end());
  CHECK(done->time_ns - start->time_ns >= 300000000u);
  CHECK(s.trigger_time_ns == done->time_ns);
  CHECK(s.trigger_start_ns == start->time_ns);
  CHECK(s.trigger_tid == done->tid);
  REQUIRE(s.trigger_site < t.sites.size());
  CHECK(t.sites[s.trigger_site].name == "req_done");
  // The window: 20 ms before the start to 20 ms after the end, every event
  // in it and none outside, requests numbered without a gap.
  CHECK(s.window_begin_ns == start->time_ns - 20000000u);
  CHECK(s.window_end_ns == done->time_ns + 20000000u);
  for (const usdt::format::Event& e : t.events) {
    CHECK(e.time_ns >= s.window_begin_ns);
    CHECK(e.time_ns <= s.window_end_ns);
  }
  for (const char* name : {"req_start", "req_done"}) {
    std::vector<uint64_t> numbers = first_args({snap}, "itest", name);
    REQUIRE(numbers.size() > 2);
    CHECK(numbers.back() - numbers.front() + 1 == numbers.size());
    CHECK(numbers.front() < 20000);
    CHECK(numbers.back() > 20000);
  }
  CHECK(r.err.find("trigger '" + trigger + "' fired 1 times: 1 snapshots") != std::string::npos);
  // usdt-report shows the trigger and the event that fired it.
  const std::string summary = report_out({"summary", snap});
  CHECK(summary.find("taken on: " + trigger) != std::string::npos);
  CHECK(summary.find("fired by: itest:req_done in pid") != std::string::npos);
}

TEST_CASE("--max-snapshots suppresses repeated triggers and counts them",
          "[.root][flight_rate_limit]") {
  const std::string dir = temp_dir("rate");
  const std::string trigger = "latency itest:req_start itest:req_done > 100ms --key arg0";
  RunResult r = run({recorder(), "-e", "itest:req_*", "-o", dir + "/rl.trace", "--flight-recorder",
                     "16M", "--snapshot-on", trigger, "--max-snapshots", "1/60",
                     "--no-exit-snapshot", "--", program("itest_requests"), "requests 100 50 150",
                     "requests 100 50 150", "requests 100 50 150"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(files_in(dir, ".trace") == std::vector<std::string>{dir + "/rl.0001.trace"});
  CHECK(r.err.find("trigger '" + trigger + "' fired 3 times: 1 snapshots, 2 suppressed") !=
        std::string::npos);
}

TEST_CASE("SIGKILL while a snapshot is written leaves the earlier snapshots intact",
          "[.root][flight_sigkill]") {
  const std::string dir = temp_dir("kill");
  // The test fault holds the second snapshot once its file has begun.
  Process rec = Process::start(
      {"/usr/bin/env", "USDT_RECORD_TEST_FAULT=snapshot_stall", recorder(), "-e", "itest:tick",
       "-o", dir + "/k.trace", "--flight-recorder", "1M", "--", program("itest_requests")},
      true, true, true);
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  REQUIRE(rec.wait_for_stderr("recording"));
  command(rec, "tick 20000", "ticked 20000");
  rec.signal(SIGUSR2);
  REQUIRE(wait_for_file(dir + "/k.0001.trace"));
  const std::string before = file_bytes(dir + "/k.0001.trace");
  command(rec, "tick 20000", "ticked 40000");
  rec.signal(SIGUSR2);
  REQUIRE(wait_for_file(dir + "/k.0002.trace.partial"));
  rec.signal(SIGKILL);
  CHECK(rec.wait() == 128 + SIGKILL);
  rec.close_stdin();  // itest_requests, left alone, ends at its end of input
  CHECK(file_bytes(dir + "/k.0001.trace") == before);
  check_newest_ticks(dir + "/k.0001.trace", 19999);
  CHECK_FALSE(std::filesystem::exists(dir + "/k.0002.trace"));
}
