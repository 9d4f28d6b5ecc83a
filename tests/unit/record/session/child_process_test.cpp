// The traced command's process: held until released, ended with everything
// it started (orphans included, through the subreaper), dead with the
// recorder, and its stdout moved to stderr when asked. No root needed.
#include "record/session/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace usdt;
using namespace usdt::record;

namespace {

// Reads one line from fd (blocking): the pids the shells below print.
std::string read_line(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

// Whether pid exits within 10 s (a pidfd becomes readable).
bool exits(pid_t pid) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};
  bool exited = poll(&p, 1, 10000) == 1;
  close(fd);
  return exited;
}

bool alive(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char buf[512] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string stat(buf, n);
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Runs `sh -c script` as a ChildProcess whose stdout is a pipe to us.
struct ShellChild {
  int out = -1;
  std::optional<ChildProcess> child;
  explicit ShellChild(const std::string& script) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    int saved = dup(STDOUT_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    Result<ChildProcess> c = ChildProcess::spawn({"/bin/sh", "-c", script});
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(fds[1]);
    out = fds[0];
    REQUIRE(c.ok());
    child.emplace(std::move(*c));
    REQUIRE(child->release().ok());
  }
  ~ShellChild() { close(out); }
};

}  // namespace

TEST_CASE("end() ends the command, its children and its orphans", "[child_process]") {
  // One child of the shell, one orphaned at once (its subshell exits): it
  // comes to us as subreaper, not to init.
  ShellChild sh("sleep 600 & echo $!; (sleep 600 & echo $!); wait");
  const pid_t child = std::stoi(read_line(sh.out));
  const pid_t orphan = std::stoi(read_line(sh.out));
  CHECK(alive(child));
  CHECK(alive(orphan));
  sh.child->end(std::chrono::milliseconds(2000));
  CHECK_FALSE(alive(sh.child->pid()));
  CHECK_FALSE(alive(child));
  CHECK_FALSE(alive(orphan));
  int status = -1;
  CHECK(sh.child->try_wait(status));
  CHECK(status == 128 + SIGTERM);
}

TEST_CASE("end() kills what ignores SIGTERM after the grace", "[child_process]") {
  ShellChild sh("trap '' TERM; echo ready; while :; do sleep 1; done");
  REQUIRE(read_line(sh.out) == "ready");
  sh.child->end(std::chrono::milliseconds(100));
  CHECK_FALSE(alive(sh.child->pid()));
  int status = -1;
  CHECK(sh.child->try_wait(status));
  CHECK(status == 128 + SIGKILL);
}

TEST_CASE("the command dies with a recorder killed by SIGKILL", "[child_process]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t recorder = fork();
  REQUIRE(recorder >= 0);
  if (recorder == 0) {
    // A stand-in recorder: starts the command, says its pid, waits.
    close(fds[0]);
    Result<ChildProcess> c = ChildProcess::spawn({"/bin/sleep", "600"});
    if (!c || !c->release()) _exit(1);
    std::string line = std::to_string(c->pid()) + "\n";
    (void)!write(fds[1], line.data(), line.size());
    pause();
    _exit(0);
  }
  close(fds[1]);
  const pid_t command = std::stoi(read_line(fds[0]));
  close(fds[0]);
  REQUIRE(alive(command));
  kill(recorder, SIGKILL);
  int status;
  REQUIRE(waitpid(recorder, &status, 0) == recorder);
  CHECK(exits(command));
}

TEST_CASE("the command's stdout goes to stderr when the trace is on stdout", "[child_process]") {
  int out[2], err[2];
  REQUIRE(pipe(out) == 0);
  REQUIRE(pipe(err) == 0);
  int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
  dup2(out[1], STDOUT_FILENO);
  dup2(err[1], STDERR_FILENO);
  Result<ChildProcess> c = ChildProcess::spawn({"/bin/echo", "hello"}, true);
  dup2(saved_out, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  close(saved_out);
  close(saved_err);
  close(out[1]);
  close(err[1]);
  REQUIRE(c.ok());
  REQUIRE(c->release().ok());
  CHECK(read_line(err[0]) == "hello");
  char byte;
  CHECK(read(out[0], &byte, 1) == 0);  // nothing on stdout
  int status = -1;
  while (!c->try_wait(status)) usleep(1000);
  CHECK(status == 0);
  close(out[0]);
  close(err[0]);
}
