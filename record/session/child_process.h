// The traced command of `usdt-record ... -- COMMAND ARG...`: forked at once
// but held before exec until every perf event is attached and enabled, so
// that not one probe hit of the command is missed. The child waits on a
// pipe; release() lets it exec. An exec failure (no such command, not
// executable) comes back through a close-on-exec pipe as the errno.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::record {

class ChildProcess {
 public:
  // Forks the child, which waits. The child gets the signal mask and
  // dispositions the recorder had before it blocked its own signals
  // (restored from the arguments). Fails if fork fails.
  static Result<ChildProcess> spawn(const std::vector<std::string>& argv);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  // Kills and reaps a child that was never released (a released one runs on).
  ~ChildProcess();

  pid_t pid() const { return pid_; }

  // Lets the child exec; fails (naming the command) if exec failed.
  Status release();

  // Non-blocking reap: true once the child exited, with its status as a
  // shell would report it (exit code, or 128 + signal).
  bool try_wait(int& exit_status);

 private:
  ChildProcess(pid_t pid, UniqueFd go, UniqueFd exec_error, std::string name)
      : pid_(pid), go_(std::move(go)), exec_error_(std::move(exec_error)), name_(std::move(name)) {}
  pid_t pid_ = -1;
  bool reaped_ = false;
  UniqueFd go_;          // write end: closing it lets the child exec
  UniqueFd exec_error_;  // read end: the child's errno if exec failed, EOF on success
  std::string name_;
};

// Finds a command as execvp would (PATH search when it has no '/'); empty
// when not found.
std::string find_in_path(const std::string& command);

}  // namespace usdt::record
