// usdt-report top and --follow against a recording in progress: what the
// view shows once the recorder has flushed a known number of events, and
// that the view ends with the recording. Root only ([.root]), as every
// recording.
#include <time.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "integration_support.h"
#include "leftovers.h"

using namespace usdt::itest;

namespace {

std::string reporter() { return USDT_REPORT_PATH; }

uint64_t monotonic_now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

// The number after "key": in a line of top's JSON, from offset from on.
std::optional<uint64_t> json_number(const std::string& line, const std::string& key,
                                    size_t from = 0) {
  const std::string quoted = "\"" + key + "\":";
  size_t at = line.find(quoted, from);
  if (at == std::string::npos) return std::nullopt;
  at += quoted.size();
  size_t end = line.find_first_not_of("0123456789", at);
  if (end == at) return std::nullopt;
  return std::stoull(line.substr(at, end - at));
}

// The events since the start of probe name, in a line of top's JSON.
std::optional<uint64_t> probe_events(const std::string& line, const std::string& name) {
  size_t at = line.find("{\"name\":\"" + name + "\"");
  if (at == std::string::npos) return std::nullopt;
  return json_number(line, "events", at);
}

// top --once as JSON, again until the file is complete up to `after` (the
// recorder flushes every --flush-interval): the screen that holds every
// event fired before then. A generous limit; no screen of it is a failure.
std::string screen_complete_after(const std::string& trace, uint64_t after) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string last;
  while (std::chrono::steady_clock::now() < limit) {
    RunResult r = run({reporter(), "top", "--once", "--format", "json", trace});
    INFO(r.err);
    REQUIRE(r.status == 0);
    last = r.out;
    std::optional<uint64_t> complete = json_number(last, "complete_before_ns");
    REQUIRE(complete);
    if (*complete >= after) return last;
    // The next flush is at most a flush interval away: look again soon.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("the file was not complete up to the events fired within 60 s; last screen: " << last);
  return last;
}

}  // namespace

TEST_CASE("top --once shows exactly the events flushed; top and summary --follow end with the "
          "recording",
          "[.root][live_view][itest_control]") {
  const std::string out = temp_trace("live_view");
  Process rec = Process::start({recorder(), "--flush-interval", "100ms", "-e", "itest:tick", "-o",
                                out, "--", program("itest_control")},
                               true, true, true);
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  rec.write_line("fire 1000");
  REQUIRE(rec.read_line() == std::optional<std::string>("fired 1000 gated 0"));
  const uint64_t fired = monotonic_now();  // every hit of the 1000 was before

  const std::string once = screen_complete_after(out, fired);
  INFO("top --once: " << once);
  CHECK(once.find("\"state\":\"recording\"") != std::string::npos);
  CHECK(probe_events(once, "itest:tick") == std::optional<uint64_t>(1000));
  CHECK(json_number(once, "late_events") == std::optional<uint64_t>(0));

  // The view, and summary --follow, while the recording goes on and ends.
  Process top = Process::start(
      {reporter(), "top", "--interval", "100ms", "--format", "json", out}, false, true, true);
  Process follow = Process::start({reporter(), "summary", "--follow", out}, false, true, true);
  rec.write_line("fire 500");
  REQUIRE(rec.read_line() == std::optional<std::string>("fired 500 gated 0"));
  rec.write_line("exit");
  std::string rec_err = rec.read_rest(true);
  INFO(rec_err);
  REQUIRE(rec.wait() == 0);

  // Both end by themselves once the file has its end.
  std::string top_out, top_err, follow_out, follow_err;
  top.read_both(&top_out, &top_err);
  follow.read_both(&follow_out, &follow_err);
  INFO("top: " << top_err << "\nsummary --follow: " << follow_err);
  CHECK(top.wait() == 0);
  CHECK(follow.wait() == 0);
  std::vector<std::string> screens = lines(top_out);
  REQUIRE_FALSE(screens.empty());
  const std::string& last = screens.back();
  INFO("top's last screen: " << last);
  CHECK(last.find("\"state\":\"ended\"") != std::string::npos);
  CHECK(probe_events(last, "itest:tick") == std::optional<uint64_t>(1500));
  // No screen ever counted more than was fired, nor went back.
  uint64_t before = 0;
  for (const std::string& screen : screens) {
    std::optional<uint64_t> n = probe_events(screen, "itest:tick");
    REQUIRE(n);
    CHECK(*n >= before);
    CHECK(*n <= 1500);
    before = *n;
  }
  // summary --follow's output is the summary of the finished trace.
  RunResult summary = run({reporter(), "summary", out});
  REQUIRE(summary.status == 0);
  CHECK(follow_out == summary.out);
}
