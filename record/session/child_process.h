// The traced command of `usdt-record ... -- COMMAND ARG...`: forked at once
// but held before exec until every perf event is attached and enabled, so
// that not one probe hit of the command is missed. The child waits on a
// pipe; release() lets it exec. An exec failure (no such command, not
// executable) comes back through a close-on-exec pipe as the errno.
//
// The command's processes are the child and everything it starts. The
// recorder is their subreaper (PR_SET_CHILD_SUBREAPER): a grandchild whose
// parent exits (`sh -c 'server & ...'`) is reparented to the recorder, not
// to init, so end() still finds it. The child dies with the recorder
// (PR_SET_PDEATHSIG, SIGKILL): a recorder killed by SIGKILL leaves no
// traced command running. (Its grandchildren then go to init: nothing is
// left to end them.) The command keeps the recorder's process group and
// terminal, so that it reads the terminal and gets Ctrl-C as it would run
// alone.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::record {

class ChildProcess {
 public:
  // Forks the child, which waits. The child gets the signal mask and
  // dispositions the recorder was started with (restore_inherited_signals).
  // stdout_to_stderr: the command's stdout is the recorder's stderr (the
  // trace goes to the recorder's stdout, and the command's output must not
  // land in it; perf record does the same). Fails if fork fails.
  static Result<ChildProcess> spawn(const std::vector<std::string>& argv,
                                    bool stdout_to_stderr = false);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  // Kills and reaps a child that was never released (a released one runs on).
  ~ChildProcess();

  pid_t pid() const { return pid_; }

  // Lets the child exec; fails (naming the command) if exec failed.
  Status release();

  // Non-blocking reap: true once the child exited, with its status as a
  // shell would report it (exit code, or 128 + signal). Also reaps the
  // command's orphaned descendants that have exited (they are ours, as
  // subreaper).
  bool try_wait(int& exit_status);

  // Ends the command and every process it started that still runs, except
  // spare (a helper of the recorder's own, -1: none): SIGTERM, then SIGKILL
  // to those still there after grace; returns once none is left.
  void end(std::chrono::milliseconds grace, pid_t spare = -1);

 private:
  ChildProcess(pid_t pid, UniqueFd go, UniqueFd exec_error, std::string name)
      : pid_(pid), go_(std::move(go)), exec_error_(std::move(exec_error)), name_(std::move(name)) {}
  // Reaps every exited child of the recorder but spare, keeping the command's status.
  void reap_exited(pid_t spare);
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;       // once reaped_
  UniqueFd go_;          // write end: closing it lets the child exec
  UniqueFd exec_error_;  // read end: the child's errno if exec failed, EOF on success
  std::string name_;
};

// Finds a command as execvp would (PATH search when it has no '/'); empty
// when not found.
std::string find_in_path(const std::string& command);

// The processes that descend from root (its children, theirs, ...), found
// through /proc; exited ones (zombies) are left out.
std::vector<pid_t> live_descendants(pid_t root);

}  // namespace usdt::record
