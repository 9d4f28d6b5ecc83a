// The slow end of a recording, moved out of the recorder's exit.
//
// Removing a uprobe takes the kernel one RCU grace period per probe under a
// global mutex (tens of milliseconds each, so seconds for a recording of
// many sites, from one thread or from many), whichever process closes the last reference
// to its perf event. So the recorder forks a child that holds the same
// perf fds and, once the recorder has exited (its end of a pipe closes),
// closes them, deletes the tracefs events and unmounts a tracefs the
// recording mounted. The recorder's own closes are then cheap: it exits
// right after its final report. Until the child is done the traced
// processes still take the breakpoint, but nothing is recorded.
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

namespace usdt::record {

// Forks a child in a session of its own. At once it closes every file
// descriptor it inherited but release_fds and keep_fd (-1: none): above all
// the trace file, which must be closed when the recorder exits (a umount,
// a df or a copy right after must not find it held for seconds). It waits
// for this process to exit, then runs release (which closes release_fds in
// the order it wants), closes what is left but keep_fd, runs last and
// exits. Returns the child's pid, or -1 when no child could be made: the
// caller then does the work itself.
pid_t detach_after_exit(const std::function<void()>& release, const std::function<void()>& last,
                       std::vector<int> release_fds, int keep_fd = -1);

}  // namespace usdt::record
