// The signals that end a recording, turned into a readable fd so that the
// drain loop wakes on them like on any ring buffer: SIGINT and SIGTERM (stop
// cleanly) and SIGCHLD (the traced command may have exited). They are blocked
// and read through a signalfd; no handler runs. After the first SIGINT or
// SIGTERM, SIGINT is unblocked again with its default action, so a second
// Ctrl-C kills the recorder when a clean stop takes too long.
#pragma once

#include <signal.h>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::record {

class StopSignals {
 public:
  // Blocks the signals and opens the signalfd.
  static Result<StopSignals> install();
  StopSignals(StopSignals&&) noexcept = default;
  StopSignals& operator=(StopSignals&&) noexcept = default;
  // Restores the previous signal mask.
  ~StopSignals();

  int fd() const { return fd_.get(); }

  // Reads every pending signal; returns true if one asked to stop (and then
  // re-arms SIGINT's default action). Sets child_exited for SIGCHLD.
  bool read_pending(bool& child_exited);

 private:
  StopSignals(UniqueFd fd, sigset_t old_mask) : fd_(std::move(fd)), old_mask_(old_mask) {}
  UniqueFd fd_;
  sigset_t old_mask_;
  bool armed_ = true;
};

}  // namespace usdt::record
