// Every way a recording ends leaves nothing behind: no tracefs event of the
// recorder's (the foreign one survives), no process of the command it
// started, and a readable trace, with its end when the file is not what
// failed. The ways: the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT), a
// terminal that hangs up, a closed stderr pipe, a closed trace pipe, an
// exception in each recorder thread, --duration and SIGINT with a shell's
// children, and SIGKILL (the command dies with the recorder). Root only.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "integration_support.h"
#include "leftovers.h"

using namespace usdt::itest;

namespace {

// Reads fd into buffer until it holds needle, for at most 30 s (a loaded
// machine); false at EOF, error or the deadline.
bool read_until(int fd, const std::string& needle, std::string& buffer) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (buffer.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[512];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  return true;
}

// The one process the recorder started (read once it records).
pid_t the_command(pid_t recorder_pid) {
  std::vector<pid_t> children = children_of(recorder_pid);
  REQUIRE(children.size() == 1);
  return children.front();
}

// What a clean end leaves: the trace's end, every event, nothing in tracefs,
// no command.
void check_clean_end(pid_t recorder_pid, pid_t command, const std::string& out, size_t ticks,
                     ForeignEvent& foreign) {
  check_cleaned_up(recorder_pid, foreign);
  CHECK_FALSE(running(command));
  Trace t = read_trace(out);
  REQUIRE(t.summary.has_value());
  CHECK(t.of("itest", "tick").size() == ticks);
  // Every event lies within the recording's span (FORMAT.md 3.6.1).
  CHECK(t.summary->enabled_monotonic_ns != 0);
  for (const usdt::format::Event& e : t.events) {
    CHECK(e.time_ns >= t.summary->enabled_monotonic_ns);
    CHECK(e.time_ns <= t.summary->end_monotonic_ns);
  }
}

}  // namespace

TEST_CASE("ways out: SIGINT, SIGTERM, SIGHUP and SIGQUIT end a recording cleanly",
          "[.root][ways_out_signals][itest_control]") {
  const int sig = GENERATE(SIGINT, SIGTERM, SIGHUP, SIGQUIT);
  INFO("signal " << sig);
  ForeignEvent foreign;
  std::string out = temp_trace("ways_out_signal");
  Process rec = start_recording({"-e", "itest:*", "-o", out, "--", program("itest_control")});
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  const pid_t command = the_command(rec.pid());
  rec.write_line("fire 3");
  CHECK(rec.read_line() == std::optional<std::string>("fired 3 gated 3"));
  rec.signal(sig);
  std::string err = rec.read_rest(true);
  INFO(rec.stderr_seen << err);
  CHECK(rec.wait() == 0);
  CHECK(err.find("usdt-record: 6 events recorded, 0 lost") != std::string::npos);
  check_clean_end(rec.pid(), command, out, 3, foreign);
}

TEST_CASE("ways out: a terminal that hangs up (ssh closed) ends the recording cleanly",
          "[.root][ways_out_hangup][itest_control]") {
  ForeignEvent foreign;
  std::string out = temp_trace("ways_out_hangup");
  std::vector<std::string> argv = {
      recorder(), "-e", "itest:*", "-o", out, "--", program("itest_control")};
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  // The recorder leads a session whose terminal is the pty; closing the
  // master hangs it up: SIGHUP, and every later write to it fails (EIO).
  int master = -1;
  pid_t rec = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(rec >= 0);
  if (rec == 0) {
    execv(args[0], args.data());
    _exit(127);
  }
  std::string seen;
  bool ready =
      read_until(master, "usdt-record: recording ", seen) && read_until(master, "ready", seen);
  INFO(seen);
  REQUIRE(ready);
  const pid_t command = the_command(rec);
  REQUIRE(write(master, "fire 2\n", 7) == 7);
  REQUIRE(read_until(master, "fired 2 gated 2", seen));
  close(master);
  int status = 0;
  REQUIRE(waitpid(rec, &status, 0) == rec);
  // The command may die of the hang-up itself (its status then passes
  // through) or be ended by the recorder: either way the recorder exits,
  // not SIGHUP.
  CHECK_FALSE(WIFSIGNALED(status));
  check_clean_end(rec, command, out, 2, foreign);
}

TEST_CASE("ways out: a closed stderr pipe (`2>&1 | head`) does not fail the recording",
          "[.root][ways_out_stderr_pipe][itest_control]") {
  ForeignEvent foreign;
  std::string out = temp_trace("ways_out_stderr_pipe");
  Process rec = start_recording({"-e", "itest:*", "-o", out, "--", program("itest_control")});
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  const pid_t command = the_command(rec.pid());
  rec.close_output(true);  // the end report meets a closed pipe
  rec.write_line("fire 3");
  CHECK(rec.read_line() == std::optional<std::string>("fired 3 gated 3"));
  rec.write_line("exit");
  CHECK(rec.wait() == 0);
  check_clean_end(rec.pid(), command, out, 3, foreign);
}

TEST_CASE("ways out: a trace pipe whose reader goes away is a write error",
          "[.root][ways_out_trace_pipe][itest_control]") {
  ForeignEvent foreign;
  // The trace goes to stdout, the command's output to stderr.
  Process rec = Process::start(
      {recorder(), "-e", "itest:*", "-o", "/dev/stdout", "--", program("itest_control")}, true,
      true, true);
  REQUIRE(rec.wait_for_stderr("usdt-record: recording "));
  REQUIRE(rec.wait_for_stderr("ready"));
  const pid_t command = the_command(rec.pid());
  rec.close_output(false);
  // Events to write: their chunk goes out within a second, into the closed pipe.
  rec.write_line("fire 100");
  std::string err = rec.read_rest(true);
  INFO(rec.stderr_seen << err);
  CHECK(rec.wait() == 1);
  CHECK(err.find("usdt-record: error: ") != std::string::npos);
  CHECK(err.find("Broken pipe") != std::string::npos);
  CHECK(err.find("events recorded") != std::string::npos);
  check_cleaned_up(rec.pid(), foreign);
  CHECK_FALSE(running(command));
}

TEST_CASE("ways out: an exception in the writer, the watchdog or the drain loop",
          "[.root][ways_out_exception][itest_control]") {
  const std::string fault = GENERATE(as<std::string>{}, "writer", "watchdog", "drain");
  INFO("exception in: " << fault);
  ForeignEvent foreign;
  std::string out = temp_trace("ways_out_exception");
  // The shell says the command's pid before it becomes the command, whose
  // probes appear with it (--allow-missing: the shell has none).
  Process rec = Process::start(
      {"/usr/bin/env", "USDT_RECORD_TEST_FAULT=" + fault, recorder(), "--allow-missing", "-e",
       "itest:*", "-o", out, "--", "/bin/sh", "-c", "echo pid $$; exec " + program("itest_control")},
      false, true, true);
  std::optional<std::string> pid_line = rec.read_line();
  std::string err = rec.read_rest(true);
  INFO(err);
  CHECK(rec.wait() == 1);
  const std::string thread = fault == "drain" ? "the drain loop" : "the " + fault + " thread";
  CHECK(err.find("usdt-record: error: recording stopped: internal error in " + thread +
                 ": std::bad_alloc") != std::string::npos);
  CHECK(err.find("events recorded") != std::string::npos);
  check_cleaned_up(rec.pid(), foreign);
  if (pid_line && pid_line->rfind("pid ", 0) == 0) {
    CHECK_FALSE(running(static_cast<pid_t>(std::stol(pid_line->substr(4)))));
  }
  Trace t = read_trace(out);  // readable
  // Only the writer's failure leaves the file without its end.
  CHECK(t.summary.has_value() == (fault != "writer"));
}

TEST_CASE("ways out: --duration and SIGINT end the children of a shell command too",
          "[.root][ways_out_command_tree][itest_control]") {
  const std::string how = GENERATE(as<std::string>{}, "--duration", "SIGINT");
  INFO("ended by " << how);
  ForeignEvent foreign;
  std::string out = temp_trace("ways_out_tree");
  std::vector<std::string> argv = {recorder(), "-e",
                                   "usdt:" + program("itest_control") + ":itest:tick", "-o", out};
  if (how == "--duration") argv.insert(argv.end(), {"--duration", "3"});
  // Two children that would outlive the shell, the second of them orphaned
  // at once (its parent, a subshell, exits); off our pipes, so that one
  // left running shows as such instead of holding the pipes open.
  argv.insert(argv.end(), {"--", "/bin/sh", "-c",
                           "sleep 600 </dev/null >/dev/null 2>&1 & echo $!; "
                           "(sleep 600 </dev/null >/dev/null 2>&1 & echo $!); wait"});
  Process rec = Process::start(argv, false, true, true);
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    std::optional<std::string> line = rec.read_line();
    REQUIRE(line);
    children.push_back(static_cast<pid_t>(std::stol(*line)));
  }
  if (how == "SIGINT") rec.signal(SIGINT);
  std::string err = rec.read_rest(true);
  INFO(rec.stderr_seen << err);
  CHECK(rec.wait() == 0);
  for (pid_t child : children) {
    INFO("child " << child);
    CHECK_FALSE(running(child));
    if (running(child)) kill(child, SIGKILL);  // the test leaves nothing either
  }
  check_cleaned_up(rec.pid(), foreign);
  CHECK(read_trace(out).summary.has_value());
}

TEST_CASE("ways out: a recorder killed by SIGKILL takes its command with it",
          "[.root][ways_out_sigkill_command][itest_control]") {
  std::string out = temp_trace("ways_out_sigkill");
  Process rec = start_recording({"-e", "itest:*", "-o", out, "--", program("itest_control")});
  REQUIRE(rec.read_line() == std::optional<std::string>("ready"));
  const pid_t command = the_command(rec.pid());
  rec.signal(SIGKILL);
  CHECK(rec.wait() == 128 + SIGKILL);
  CHECK(wait_for_exit(command, std::chrono::seconds(10)));
  // Its tracefs group stays (nothing of it is left to delete it): the test
  // deletes what it made.
  for (const std::string& line : events_of(rec.pid())) {
    write_uprobe_events("-:" + line.substr(2, line.find(' ') - 2));
  }
  CHECK(events_of(rec.pid()).empty());
}

TEST_CASE("the trace to stdout: the command's output goes to stderr and the byte count is exact",
          "[.root][stdout_trace]") {
  // usdt-record -o /dev/stdout ... | cat > FILE: what arrived is FILE.
  std::string arrived = temp_trace("stdout_trace");
  std::string command = program("itest_memory") + " 3; echo hello world";
  RunResult r =
      run({"/bin/sh", "-c",
           recorder() + " -e usdt:" + program("itest_memory") +
               ":memory:heap -o /dev/stdout -- /bin/sh -c '" + command + "' | cat > " + arrived});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("hello world\n") != std::string::npos);
  std::ifstream in(arrived, std::ios::binary);
  std::string trace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(trace.find("hello world") == std::string::npos);
  // "usdt-record: N events recorded, 0 lost, B bytes written to /dev/stdout"
  const std::string said = " bytes written to /dev/stdout";
  size_t at = r.err.find(said);
  REQUIRE(at != std::string::npos);
  size_t from = r.err.rfind(' ', at - 1) + 1;
  CHECK(std::stoull(r.err.substr(from, at - from)) == trace.size());
  Trace t = read_trace(arrived);
  CHECK(t.summary.has_value());
  CHECK(t.of("memory", "heap").size() == 3);
  unlink(arrived.c_str());
}
