// Moving one thread of the recorder between the kernel's idle scheduling
// class and the normal one (sched(7): SCHED_IDLE, SCHED_OTHER).
//
// The writer thread (encoding, compression, the disk) runs idle while it
// keeps up: a busy workload then does not give it CPU time, and the work
// waits for a CPU the workload leaves free. Leaving SCHED_IDLE again needs
// CAP_SYS_NICE (or an RLIMIT_NICE that allows nice 0): without it the
// thread is never made idle, since it could not be raised when the
// backlog grows.
#pragma once

#include <sys/types.h>

namespace usdt::record {

// Whether this process may move a thread of its own out of SCHED_IDLE.
bool can_leave_idle_priority();

// tid runs only when a CPU would otherwise be idle / as any normal thread.
// Both return false (errno set) when the kernel refuses.
bool set_idle_priority(pid_t tid);
bool set_normal_priority(pid_t tid);

}  // namespace usdt::record
