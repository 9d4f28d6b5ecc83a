#include "record/session/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

#include "common/file_io.h"
#include "record/session/stop_signals.h"

namespace usdt::record {
namespace {

// The parent and state of a process from /proc/PID/stat; false when it is
// gone. The command name (field 2) may hold spaces and parentheses: the
// fields are counted after its last ')'.
bool read_parent(pid_t pid, pid_t& parent, char& state) {
  Result<std::string> stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 4 >= stat->size()) return false;
  state = (*stat)[close + 2];
  const char* from = stat->data() + close + 4;
  auto [p, ec] = std::from_chars(from, stat->data() + stat->size(), parent);
  return ec == std::errc();
}

int shell_status(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// How often end() looks again whether the processes it signalled are gone.
constexpr std::chrono::milliseconds kEndPoll{10};

}  // namespace

std::vector<pid_t> live_descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return {};
  while (dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    const char* name = entry->d_name;
    auto [p, ec] = std::from_chars(name, name + std::strlen(name), pid);
    if (ec != std::errc() || *p != '\0') continue;
    pid_t parent = 0;
    char state = 0;
    if (read_parent(pid, parent, state) && state != 'Z' && state != 'X') {
      children.emplace(parent, pid);
    }
  }
  closedir(dir);
  std::vector<pid_t> found;
  std::vector<pid_t> next = {root};
  while (!next.empty()) {
    pid_t parent = next.back();
    next.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      found.push_back(it->second);
      next.push_back(it->second);
    }
  }
  return found;
}

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

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                         bool stdout_to_stderr) {
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

  // The command's orphans come to us (child_process.h); set once, harmless again.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  const pid_t recorder = getpid();
  pid_t pid = fork();
  if (pid < 0) return errno_error("cannot fork");
  if (pid == 0) {
    // Dies with the recorder. The recorder may have died before the prctl:
    // then the child already has another parent, and must not run alone.
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != recorder) _exit(127);
    // The recorder blocks its stop signals for its signalfd and ignores
    // SIGPIPE; the command starts with what the recorder was given.
    restore_inherited_signals();
    if (stdout_to_stderr) dup2(STDERR_FILENO, STDOUT_FILENO);
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
      status_(other.status_),
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
  if (!reaped_) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      status_ = shell_status(status);
    }
  }
  reap_exited(-1);
  if (reaped_) exit_status = status_;
  return reaped_;
}

void ChildProcess::reap_exited(pid_t spare) {
  // Peek first (WNOWAIT): spare is not ours to reap.
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    if (info.si_pid == spare) return;
    int status;
    if (waitpid(info.si_pid, &status, WNOHANG) != info.si_pid) return;
    if (info.si_pid == pid_ && !reaped_) {
      reaped_ = true;
      status_ = shell_status(status);
    }
  }
}

void ChildProcess::end(std::chrono::milliseconds grace, pid_t spare) {
  // Everything below the recorder but spare: the command, its children, and
  // the orphans the recorder adopted as their subreaper.
  auto remaining = [&] {
    std::vector<pid_t> left;
    for (pid_t pid : live_descendants(getpid())) {
      if (pid != spare) left.push_back(pid);
    }
    return left;
  };
  for (pid_t pid : remaining()) kill(pid, SIGTERM);
  const auto firm_after = std::chrono::steady_clock::now() + grace;
  bool firm = false;
  for (;;) {
    reap_exited(spare);
    std::vector<pid_t> left = remaining();
    // Done once the command is reaped too (a zombie is not in remaining()),
    // and the orphans that died meanwhile are reaped after it.
    if (left.empty() && reaped_) {
      reap_exited(spare);
      break;
    }
    if (!firm && std::chrono::steady_clock::now() >= firm_after) firm = true;
    // Once firm, every round: a process may have forked meanwhile.
    if (firm) {
      for (pid_t pid : left) kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(kEndPoll);
  }
}

}  // namespace usdt::record
