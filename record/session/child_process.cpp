#include "record/session/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace usdt::record {

std::string find_in_path(const std::string& command) {
  if (command.empty()) return "";
  if (command.find('/') != std::string::npos)
    return access(command.c_str(), X_OK) == 0 ? command : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error("no command given");
  int go[2], err[2];
  if (pipe2(go, O_CLOEXEC) != 0) return errno_error("cannot create a pipe");
  UniqueFd go_read(go[0]), go_write(go[1]);
  if (pipe2(err, O_CLOEXEC) != 0) return errno_error("cannot create a pipe");
  UniqueFd err_read(err[0]), err_write(err[1]);

  // Built before fork: the child may only call async-signal-safe functions.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) return errno_error("cannot fork");
  if (pid == 0) {
    // The recorder blocks SIGINT/SIGTERM/SIGCHLD for its signalfd; the
    // command must start with an ordinary mask.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    char c;
    ssize_t n;
    do {
      n = read(go_read.get(), &c, 1);
    } while (n < 0 && errno == EINTR);
    // EOF without a byte: the recorder gave up; do not run the command.
    if (n != 1) _exit(127);
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(err_write.get(), &e, sizeof e);
    _exit(127);
  }
  go_read.reset();
  err_write.reset();
  return ChildProcess(pid, std::move(go_write), std::move(err_read), argv[0]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(other.reaped_),
      go_(std::move(other.go_)),
      exec_error_(std::move(other.exec_error_)),
      name_(std::move(other.name_)) {}

ChildProcess::~ChildProcess() {
  // A released command runs on by itself; only one still held is ours to end.
  if (pid_ <= 0 || reaped_ || !go_.valid()) return;
  kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

Status ChildProcess::release() {
  char go = 'g';
  if (write(go_.get(), &go, 1) != 1) return errno_error("cannot start '" + name_ + "'");
  go_.reset();
  int err = 0;
  ssize_t n;
  do {
    n = read(exec_error_.get(), &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  exec_error_.reset();
  if (n == static_cast<ssize_t>(sizeof err)) {
    return Error("cannot run '" + name_ + "': " + std::strerror(err));
  }
  return Status::success();
}

bool ChildProcess::try_wait(int& exit_status) {
  if (reaped_) return true;
  int status;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  reaped_ = true;
  exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

}  // namespace usdt::record
