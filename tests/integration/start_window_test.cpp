// A recording that starts while another one's clean-up is still under way
// (its background detacher removing 64 tracefs events): it must not wait for
// that clean-up, and the window it states before its probes were armed
// (the summary's armed_monotonic_ns, the end report's line) must be exact:
// every hit after it recorded, the first one missed before it. Checked from
// the trace's own timestamps and the workload's clock readings, not by how
// long anything took on this machine.
#include <signal.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "integration_support.h"
#include "leftovers.h"

using usdt::format::Event;
using namespace usdt::itest;

TEST_CASE("a recording started during another's clean-up is armed before it ends; the window it "
          "states is exact",
          "[.root][start_window]") {
  ensure_tracefs();
  Process many = Process::start({program("itest_many")}, true, false, false);
  Process stamp = Process::start({program("itest_stamp")}, true, true, false);
  REQUIRE(stamp.read_line() == std::optional<std::string>("ready"));

  // The first: 64 sites read through memory, a tracefs event each (the
  // sampled path: the BPF path takes -a's sites without tracefs).
  const std::string first_out = temp_trace("start_window_first");
  Process first = Process::start({recorder(), "--capture", "sample", "-a", "-e",
                                  "usdt:" + program("itest_many") + ":many:*", "-o", first_out},
      false, true, true);
  REQUIRE(first.wait_for_stderr("usdt-record: recording 64 probe sites"));
  first.signal(SIGINT);
  std::string first_err = first.stderr_seen + first.read_rest(true);
  INFO(first_err);
  REQUIRE(first.wait() == 0);
  REQUIRE_FALSE(events_of(first.pid()).empty());  // its detacher has them to remove

  // The second, at once, on a process that fires all along.
  const std::string out = temp_trace("start_window");
  Process second = Process::start({recorder(), "-e", "usdt:" + program("itest_stamp") +
                                                         ":stamp:tick",
                                   "-o", out, "-p", std::to_string(stamp.pid())},
                                  false, true, true);
  REQUIRE(second.wait_for_stderr("usdt-record: recording "));
  // Armed while the first's clean-up still ran: it did not wait for it.
  const std::vector<std::string> still = events_of(first.pid());
  INFO("the first recording's events when the second was armed:\n" << text(still));
  CHECK_FALSE(still.empty());
  stamp.write_line("stop 100");  // a hundred hits more, recorded
  std::optional<std::string> stopped = stamp.read_line();
  REQUIRE(stopped);
  CHECK(stamp.wait() == 0);
  std::string err = second.stderr_seen + second.read_rest(true);
  INFO(err);
  REQUIRE(second.wait() == 0);
  CHECK(err.find("usdt-record: probes armed ") != std::string::npos);
  CHECK(err.find("hits before that were neither recorded nor counted") != std::string::npos);
  many.close_stdin();
  CHECK(many.wait() == 0);
  CHECK(wait_until_gone(first.pid()).empty());

  Trace t = read_trace(out);
  REQUIRE(t.summary);
  const uint64_t enabled = t.summary->enabled_monotonic_ns;
  const uint64_t armed = t.summary->armed_monotonic_ns;
  REQUIRE(enabled != 0);
  REQUIRE(armed >= enabled);
  std::vector<Event> ticks = t.of("stamp", "tick");
  REQUIRE(ticks.size() >= 2);
  CHECK(t.lost_count() == 0);
  // Every hit from the first recorded on is there, in order, none twice.
  for (size_t i = 1; i < ticks.size(); ++i) CHECK(ticks[i].args[0] == ticks[i - 1].args[0] + 1);
  const Event& first_hit = ticks.front();
  INFO("enabled at " << enabled << ", armed at " << armed << ", first hit " << first_hit.args[0]
                     << " at " << first_hit.time_ns << " (read " << first_hit.args[1]
                     << "), the one before read " << first_hit.args[2]);
  CHECK(first_hit.time_ns >= enabled);
  // The hit missed just before happened after its clock reading; had that
  // been after the stated armed time, it would be in the trace.
  if (first_hit.args[0] > 0) CHECK(first_hit.args[2] < armed);
  // Through to the last hit the workload made (it stopped on our line,
  // after the second said it was recording).
  CHECK("stopped " + std::to_string(ticks.back().args[0]) == *stopped);
}
