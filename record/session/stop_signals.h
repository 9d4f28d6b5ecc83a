// The signals that end a recording, turned into a readable fd so that the
// drain loop wakes on them like on any ring buffer. They are blocked and read
// through a signalfd; no handler runs. What each one means:
//   SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (the terminal or ssh session
//   closed), SIGQUIT (Ctrl-\): stop cleanly, as at the end of the command:
//   drain the rings, write the summary, end a traced command that still
//   runs, remove our tracefs events. The exit status is that of a clean end.
//   SIGCHLD: the traced command may have exited.
//   SIGUSR2, only when the output takes it (--flight-recorder,
//   --switch-output): a snapshot, or the next file of a series; otherwise
//   its default action, as before.
//   SIGPIPE: ignored (ignore_broken_pipes()), so that the write that met a
//   closed pipe fails with EPIPE instead of killing the recorder: on the
//   trace (-o into a pipe whose reader went away) that is a write error,
//   which stops the recording; on stderr (`usdt-record ... 2>&1 | head`) the
//   messages are lost and the recording goes on to its normal end.
// After the first stop signal, SIGINT is unblocked again with its default
// action, so a second Ctrl-C kills the recorder when a clean stop takes too
// long.
//
// perf record, for comparison, handles SIGINT, SIGTERM and SIGCHLD and dies
// of SIGHUP, SIGQUIT and SIGPIPE by their default action; for a recorder
// that leaves kernel objects (tracefs events) behind, that is not enough.
#pragma once

#include <signal.h>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::record {

// Sets SIGPIPE to SIG_IGN for the whole recorder, remembering the
// disposition it had (restored in the traced command by
// restore_inherited_signals()). Call once, first thing in main.
void ignore_broken_pipes();
// In a forked child before exec: the signal dispositions and mask the
// recorder was started with (SIGPIPE as it was, nothing blocked).
// Async-signal-safe.
void restore_inherited_signals();

class StopSignals {
 public:
  // Blocks the signals and opens the signalfd; output_signal: SIGUSR2 too.
  static Result<StopSignals> install(bool output_signal = false);
  StopSignals(StopSignals&&) noexcept = default;
  StopSignals& operator=(StopSignals&&) noexcept = default;
  // Restores the previous signal mask.
  ~StopSignals();

  int fd() const { return fd_.get(); }

  // Reads every pending signal; returns true if one asked to stop (and then
  // re-arms SIGINT's default action). Sets child_exited for SIGCHLD, and
  // output_asked for SIGUSR2.
  bool read_pending(bool& child_exited, bool& output_asked);

 private:
  StopSignals(UniqueFd fd, sigset_t old_mask) : fd_(std::move(fd)), old_mask_(old_mask) {}
  UniqueFd fd_;
  sigset_t old_mask_;
  bool armed_ = true;
};

}  // namespace usdt::record
