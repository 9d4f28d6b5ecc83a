#include "record/attach/background_detach.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace usdt::record {
namespace {

// Closes every descriptor from 3 up except those in keep.
void close_all_but(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int fd : keep) {
    if (fd < 3 || static_cast<unsigned>(fd) < from) continue;
    if (static_cast<unsigned>(fd) > from) {
      syscall(SYS_close_range, from, static_cast<unsigned>(fd - 1), 0u);
    }
    from = static_cast<unsigned>(fd) + 1;
  }
  syscall(SYS_close_range, from, ~0u, 0u);
}

}  // namespace

pid_t detach_after_exit(const std::function<void()>& release, const std::function<void()>& last,
                       std::vector<int> release_fds, int keep_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (child > 0) {
    // The write end stays open until this process exits: that is the signal.
    close(fds[0]);
    return child;
  }
  // The child: out of the terminal's process group (a Ctrl-C meant for the
  // recorder must not stop the cleanup), quiet, named for ps.
  setsid();
  prctl(PR_SET_NAME, "usdt-detach", 0, 0, 0);
  close(fds[1]);
  release_fds.push_back(fds[0]);
  release_fds.push_back(keep_fd);
  close_all_but(std::move(release_fds));
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0) {
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
  }
  char byte;
  ssize_t n;
  do {
    n = read(fds[0], &byte, 1);
  } while (n < 0 && errno == EINTR);
  // The recorder has exited: every perf event is ours alone to close.
  release();
  close_all_but({fds[0], keep_fd});
  last();
  _exit(0);
}

}  // namespace usdt::record
