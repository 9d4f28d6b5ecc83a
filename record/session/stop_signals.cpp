#include "record/session/stop_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace usdt::record {

Result<StopSignals> StopSignals::install() {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, &old) != 0) return errno_error("cannot block signals");
  int fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) {
    Error e = errno_error("cannot create a signalfd");
    sigprocmask(SIG_SETMASK, &old, nullptr);
    return e;
  }
  return StopSignals(UniqueFd(fd), old);
}

StopSignals::~StopSignals() {
  if (fd_.valid()) sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

bool StopSignals::read_pending(bool& child_exited) {
  bool stop = false;
  signalfd_siginfo info;
  for (;;) {
    ssize_t n = read(fd_.get(), &info, sizeof info);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof info)) break;
    if (info.ssi_signo == SIGCHLD) {
      child_exited = true;
    } else {
      stop = true;
    }
  }
  if (stop && armed_) {
    // A second Ctrl-C now kills us with the default action.
    armed_ = false;
    signal(SIGINT, SIG_DFL);
    sigset_t intr;
    sigemptyset(&intr);
    sigaddset(&intr, SIGINT);
    sigprocmask(SIG_UNBLOCK, &intr, nullptr);
  }
  return stop;
}

}  // namespace usdt::record
