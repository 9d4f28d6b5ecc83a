#include "record/session/thread_priority.h"

#include <linux/capability.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace usdt::record {
namespace {

bool has_effective_capability(int capability) {
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[capability / 32].effective >> (capability % 32)) & 1u;
}

bool set_policy(pid_t tid, int policy) {
  sched_param param{};
  // sched_setscheduler(2) with a thread id acts on that thread only.
  return sched_setscheduler(tid, policy, &param) == 0;
}

// sched_setattr(2)'s struct (glibc has no wrapper before 2.41).
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};

}  // namespace

bool can_leave_idle_priority() {
  if (has_effective_capability(CAP_SYS_NICE)) return true;
  // Without the capability the kernel lets a thread leave SCHED_IDLE when
  // its nice value is one it could set: down to 20 - RLIMIT_NICE.
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return false;
  rlimit limit{};
  if (getrlimit(RLIMIT_NICE, &limit) != 0) return false;
  return limit.rlim_cur == RLIM_INFINITY || static_cast<rlim_t>(20 - nice) <= limit.rlim_cur;
}

bool set_idle_priority(pid_t tid) {
  // The shortest slice the kernel allows (0.1 ms, Linux 6.12 and later):
  // picked now and then all the same, an idle thread then holds a CPU the
  // workload wants for a tenth of a millisecond instead of a full slice.
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = SCHED_IDLE;
  errno = 0;
  attr.sched_nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));  // kept
  if (errno != 0) return set_policy(tid, SCHED_IDLE);
  attr.sched_runtime = 100 * 1000;
  if (syscall(SYS_sched_setattr, tid, &attr, 0u) == 0) return true;
  return set_policy(tid, SCHED_IDLE);  // an older kernel: EINVAL for the slice
}

bool set_normal_priority(pid_t tid) { return set_policy(tid, SCHED_OTHER); }

}  // namespace usdt::record
