#include "record/resolve/target_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "fixture_paths.h"

using namespace usdt;
using namespace usdt::record;

namespace {

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// (provider is copied, not assigned from a literal: GCC 12 warns falsely,
// -Wrestrict, on assigning a one-character literal to a std::string here.)
ResolvedSite site_in(const std::string& path, const std::string& name) {
  static const std::string kProvider = "p";
  ResolvedSite s;
  s.path = path;
  s.open_path = path;
  s.provider = kProvider;
  s.name = name;
  return s;
}

}  // namespace

TEST_CASE("a process id stays itself, without a note", "[target_processes]") {
  std::vector<std::string> notes;
  auto pids = resolve_target_pids({getpid(), getpid()}, notes);
  REQUIRE(pids.ok());
  CHECK(*pids == std::vector<pid_t>{getpid()});
  CHECK(notes.empty());
}

TEST_CASE("a thread id stands for its process, with a note", "[target_processes]") {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread t([&] {
    tid = current_tid();
    while (!done) usleep(1000);
  });
  while (tid == 0) usleep(1000);
  std::vector<std::string> notes;
  auto pids = resolve_target_pids({tid.load()}, notes);
  done = true;
  t.join();
  REQUIRE(pids.ok());
  CHECK(*pids == std::vector<pid_t>{getpid()});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "TID " + std::to_string(tid.load()) + " is a thread of PID " +
                        std::to_string(getpid()) + ": tracing the process");
}

TEST_CASE("a kernel thread or a missing process is an error at once", "[target_processes]") {
  std::vector<std::string> notes;
  // PID 2 is kthreadd on Linux.
  auto kernel = resolve_target_pids({2}, notes);
  REQUIRE_FALSE(kernel.ok());
  CHECK(kernel.error().message() ==
        "PID 2 (kthreadd) is a kernel thread: it maps no files and runs no probes");
  auto gone = resolve_target_pids({999999999}, notes);
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().message() == "no process with PID 999999999");
}

TEST_CASE("a probed file a target does not map: warning, or error when none does",
          "[target_processes]") {
  // This test maps itself but not the fixture library.
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(n > 0);
  self[n] = '\0';
  std::vector<std::string> warnings;
  CHECK(check_pids_map_sites({getpid()}, {site_in(self, "a")}, warnings).ok());
  CHECK(warnings.empty());

  auto none = check_pids_map_sites(
      {getpid()}, {site_in(FIXTURE_LIB, "b"), site_in(FIXTURE_LIB, "c")}, warnings);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message() == std::string("no traced process maps '") + FIXTURE_LIB +
                                      "' (probe p:b, p:c; PID " + std::to_string(getpid()) + ")");

  // With a second process that maps it (a child running the fixture that
  // uses the library), only the first is warned about.
  warnings.clear();
  // It waits for a line on its stdin: a pipe kept open until the end.
  int hold[2];
  REQUIRE(pipe(hold) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(hold[0], 0);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl(FIXTURE_USELIB, FIXTURE_USELIB, "1", "--wait", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the child has exec'd and mapped the library.
  Status s = Error("not yet");
  for (int i = 0; i < 500 && !s; ++i) {
    usleep(10000);
    std::vector<std::string> ignored;
    s = check_pids_map_sites({child}, {site_in(FIXTURE_LIB, "b")}, ignored);
  }
  Status both = check_pids_map_sites({getpid(), child}, {site_in(FIXTURE_LIB, "b")}, warnings);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(hold[0]);
  close(hold[1]);
  CHECK(s.ok());
  CHECK(both.ok());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "PID " + std::to_string(getpid()) + " does not map '" + FIXTURE_LIB +
                           "': probe p:b cannot fire in it");
}
