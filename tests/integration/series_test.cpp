// --switch-output, --max-files and a full disk (issue "always on", bounded
// output): real recordings of itest_requests, whose requests are numbered,
// so that every event is found exactly once across the files.
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "always_on_support.h"
#include "formats/trace_reader.h"
#include "integration_support.h"

using namespace usdt::itest;
using usdt::format::FileRole;

namespace {

// The recorder on itest_requests serving `bursts` x 20000 requests. The
// ring buffers (32 MiB per CPU) hold the whole run: nothing is lost even if
// the drain loop is held up, so the counts are exact.
std::vector<std::string> record_requests(const std::string& out, int bursts,
                                         const std::vector<std::string>& options) {
  std::vector<std::string> argv = {recorder(), "--buffer-pages", "8192", "-e", "itest:req_start",
                                   "-e",       "itest:req_done", "-o",   out};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.push_back(program("itest_requests"));
  for (int i = 0; i < bursts; ++i) argv.push_back("requests 20000 -1 0");
  return argv;
}

std::string part_name(const std::string& dir, const std::string& name, uint32_t k) {
  char number[16];
  std::snprintf(number, sizeof number, "%04u", k);
  return dir + "/" + name + "." + number + ".trace";
}

// Whether the values are 0, 1, ..., n - 1.
bool is_each_once(const std::vector<uint64_t>& values, uint64_t n) {
  if (values.size() != n) return false;
  for (uint64_t i = 0; i < n; ++i) {
    if (values[i] != i) return false;
  }
  return true;
}

// A part read alone: complete, its summary its own, its thread named.
void check_reads_alone(const std::string& path) {
  INFO(path);
  Trace t = read_trace(path);
  CHECK_FALSE(t.truncated);
  REQUIRE(t.summary.has_value());
  CHECK(t.summary->events == t.events.size());
  CHECK(t.lost_count() == 0);
  const bool named = std::any_of(t.processes.begin(), t.processes.end(),
                                 [](const auto& p) { return p.comm.find("itest_requests") == 0; });
  CHECK(named);
}

}  // namespace

TEST_CASE("--switch-output writes complete files that hold every event once and read as one",
          "[.root][series_rotation]") {
  const std::string dir = temp_dir("series");
  RunResult r = run(record_requests(dir + "/req.trace", 10, {"--switch-output", "32K"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::vector<std::string> parts = files_in(dir, ".trace");
  CHECK(files_in(dir, ".partial").empty());
  REQUIRE(parts.size() >= 5);
  const std::string recording = metadata_of(parts[0]).series.recording_id;
  CHECK(recording.size() == 32);
  uint64_t events = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    CHECK(parts[k] == part_name(dir, "req", static_cast<uint32_t>(k + 1)));
    const usdt::format::TraceMetadata m = metadata_of(parts[k]);
    CHECK(m.series.role == FileRole::part);
    CHECK(m.series.sequence == k + 1);
    CHECK(m.series.recording_id == recording);
    CHECK((k == 0) == (m.series.carried_ns == 0));
    check_reads_alone(parts[k]);
    events += read_trace(parts[k]).events.size();
  }
  CHECK(events == 400000);
  CHECK(is_each_once(first_args(parts, "itest", "req_start"), 200000));
  CHECK(is_each_once(first_args(parts, "itest", "req_done"), 200000));
  CHECK(r.err.find("bytes written to " + std::to_string(parts.size()) + " files req.0001.trace") !=
        std::string::npos);

  // One long recording of the same workload gives the same numbers.
  const std::string single = temp_dir("single") + "/req.trace";
  RunResult s = run(record_requests(single, 10, {}));
  INFO(s.err);
  REQUIRE(s.status == 0);
  const std::string a = report_out({"summary", "--format", "json", dir});
  const std::string b = report_out({"summary", "--format", "json", single});
  CHECK(json_number(a, "events") == 400000);
  CHECK(json_number(b, "events") == 400000);
  CHECK(json_number(a, "lost") == json_number(b, "lost"));
  const std::vector<std::string> latency = {"latency", "--start",        "itest:req_start",
                                            "--end",   "itest:req_done", "--key",
                                            "arg0",    "--format",       "json"};
  std::vector<std::string> la = latency, lb = latency;
  la.push_back(dir);
  lb.push_back(single);
  const std::string pa = report_out(la), pb = report_out(lb);
  CHECK(json_number(pa, "count") == 200000);
  CHECK(json_number(pb, "count") == 200000);
  for (const char* key : {"unmatched_starts", "unmatched_ends"}) {
    CHECK(json_number(pa, key) == 0);
    CHECK(json_number(pb, key) == 0);
  }
  CHECK(report_out({"hist", "--probe", "itest:req_done", "--arg", "0", dir}) ==
        report_out({"hist", "--probe", "itest:req_done", "--arg", "0", single}));
  // A pattern names the series as well as its directory; a part alone says
  // which part it is.
  CHECK(json_number(report_out({"summary", "--format", "json", dir + "/req.*.trace"}), "events") ==
        400000);
  const std::string second = report_out({"summary", parts[1]});
  CHECK(second.find("part 2 of a series (recording " + recording + ")") != std::string::npos);
  CHECK(second.find("itest_requests") != std::string::npos);
}

TEST_CASE("--max-files 3 leaves exactly the newest 3 files, each complete",
          "[.root][series_max_files]") {
  const std::string dir = temp_dir("max_files");
  RunResult r =
      run(record_requests(dir + "/m.trace", 5, {"--switch-output", "32K", "--max-files", "3"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  // "usdt-record: N files written, the oldest N-3 deleted (--max-files 3)"
  const size_t at = r.err.find(" files written, the oldest ");
  REQUIRE(at != std::string::npos);
  const uint32_t written =
      static_cast<uint32_t>(std::stoul(r.err.substr(r.err.rfind("usdt-record: ", at) + 13)));
  // More than 3, so that one was deleted at least. How many 32K parts the
  // run makes depends on where the writer's chunks end (by size or by time),
  // which the drain's timing moves: the rotation case counts parts exactly.
  REQUIRE(written > 3);
  CHECK(r.err.find("the oldest " + std::to_string(written - 3) + " deleted (--max-files 3)") !=
        std::string::npos);
  const std::vector<std::string> kept = files_in(dir, ".trace");
  REQUIRE(kept.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(kept[i] == part_name(dir, "m", written - 2 + i));
    check_reads_alone(kept[i]);
  }
  // The newest requests are there, each once: the last part ends the run.
  // (Not "without a gap" at the first kept file's start: neighbouring files
  // may overlap in time by a drain pass, like the chunks of one file.)
  std::vector<uint64_t> done = first_args(kept, "itest", "req_done");
  REQUIRE(!done.empty());
  CHECK(done.back() == 99999);
  CHECK(std::adjacent_find(done.begin(), done.end()) == done.end());
  RunResult read = run({USDT_REPORT_PATH, "summary", dir});
  CHECK(read.status == 0);
  CHECK(read.err.find("parts 1 to " + std::to_string(written - 3) + " are not read") !=
        std::string::npos);
}

TEST_CASE("a full disk during rotation keeps every completed file", "[.root][series_full_disk]") {
  // 256 KiB of space: a few parts of 32 KiB, then the disk is full.
  const std::string dir = temp_dir("full_series");
  RunResult mount = run({"/bin/mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir});
  REQUIRE(mount.status == 0);
  RunResult r = run(record_requests(dir + "/d.trace", 50, {"--switch-output", "32K"}));
  const std::vector<std::string> complete = files_in(dir, ".trace");
  const std::vector<std::string> partial = files_in(dir, ".partial");
  std::vector<Trace> traces;
  for (const std::string& f : complete) traces.push_back(read_trace(f));
  uint64_t in_partial = 0;
  for (const std::string& f : partial) in_partial += read_trace(f).events.size();
  RunResult unmount = run({"/bin/umount", dir});
  if (unmount.status != 0) run({"/bin/umount", "-l", dir});
  INFO(r.err);
  CHECK(unmount.status == 0);
  CHECK(r.status == 1);
  CHECK(r.err.find("No space left on device") != std::string::npos);
  // Every completed file is there, whole, numbered from 1 with no gap; the
  // file the error met stays as it was, readable up to its last chunk.
  REQUIRE(complete.size() >= 1);
  REQUIRE(partial.size() == 1);
  uint64_t in_complete = 0;
  for (size_t k = 0; k < complete.size(); ++k) {
    CHECK(complete[k] == part_name(dir, "d", static_cast<uint32_t>(k + 1)));
    CHECK_FALSE(traces[k].truncated);
    REQUIRE(traces[k].summary.has_value());
    CHECK(traces[k].summary->events == traces[k].events.size());
    in_complete += traces[k].events.size();
  }
  CHECK(partial[0] == part_name(dir, "d", static_cast<uint32_t>(complete.size() + 1)) + ".partial");
  // "usdt-record: the files written hold W of the R events: ..."
  const std::string holds = "the files written hold ";
  const size_t at = r.err.find(holds);
  REQUIRE(at != std::string::npos);
  CHECK(std::stoull(r.err.substr(at + holds.size())) == in_complete + in_partial);
}

TEST_CASE("--max-size stops cleanly at the size, the end written", "[.root][max_size]") {
  const std::string dir = temp_dir("max_size");
  const std::string out = dir + "/cap.trace";
  RunResult r = run(record_requests(out, 20, {"--max-size", "64K"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::file_size(out) <= 64 * 1024);
  Trace t = read_trace(out);
  CHECK_FALSE(t.truncated);
  REQUIRE(t.summary.has_value());
  CHECK(t.summary->events == t.events.size());
  // "usdt-record: R events recorded, ..."; the ones that did not fit are
  // counted as dropped, in the file and in the report.
  const size_t at = r.err.find(" events recorded, ");
  REQUIRE(at != std::string::npos);
  const uint64_t recorded = std::stoull(r.err.substr(r.err.rfind("usdt-record: ", at) + 13));
  uint64_t refused = 0;
  for (const auto& [cause, count] : t.summary->dropped) {
    if (cause == "max_size") refused = count;
  }
  CHECK(refused > 0);
  CHECK(recorded == t.events.size() + refused);
  CHECK(r.err.find("stopped at --max-size 65536 bytes: " + std::to_string(refused) +
                   " events did not fit") != std::string::npos);
  // What is in the file is the start of the run, each request once.
  std::vector<uint64_t> done = first_args({out}, "itest", "req_done");
  REQUIRE(!done.empty());
  CHECK(done.front() == 0);
  CHECK(std::adjacent_find(done.begin(), done.end()) == done.end());
}
