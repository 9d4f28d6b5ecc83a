#include "record/session/stop_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace usdt::record {
namespace {

// SIGPIPE's disposition when the recorder started (ignore_broken_pipes()).
struct sigaction inherited_sigpipe;
bool sigpipe_saved = false;

}  // namespace

void ignore_broken_pipes() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigpipe_saved = sigaction(SIGPIPE, &ignore, &inherited_sigpipe) == 0;
}

void restore_inherited_signals() {
  if (sigpipe_saved) sigaction(SIGPIPE, &inherited_sigpipe, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

Result<StopSignals> StopSignals::install(bool output_signal) {
  sigset_t set, old;
  sigemptyset(&set);
  for (int stop : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&set, stop);
  if (output_signal) sigaddset(&set, SIGUSR2);
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

bool StopSignals::read_pending(bool& child_exited, bool& output_asked) {
  bool stop = false;
  signalfd_siginfo info;
  for (;;) {
    ssize_t n = read(fd_.get(), &info, sizeof info);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof info)) break;
    if (info.ssi_signo == SIGCHLD) {
      child_exited = true;
    } else if (info.ssi_signo == SIGUSR2) {
      output_asked = true;
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
