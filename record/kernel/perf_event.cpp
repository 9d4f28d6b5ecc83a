#include "record/kernel/perf_event.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/hex_text.h"

namespace usdt::record {
namespace {

void set_common(perf_event_attr& attr, const EventTarget& target, const EventOptions& options) {
  attr.size = sizeof attr;
  attr.sample_period = 1;
  attr.sample_type = sample_id_type(options.identifier);
  attr.disabled = 1;
  attr.inherit = target.inherit ? 1 : 0;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  // A watermark wakeup, never one per event: a wakeup per sample costs the
  // traced program a context switch per hit, many times the trap itself.
  attr.watermark = 1;
  attr.wakeup_watermark = options.wakeup_bytes;
  attr.exclude_kernel = 0;
}

}  // namespace

Error perf_open_error(int err, const std::string& what, bool uses_semaphore) {
  std::string msg = "cannot open perf event for " + what + ": " + std::strerror(err);
  switch (err) {
    case EACCES:
    case EPERM:
      msg += "\nhint: run as root or with CAP_SYS_ADMIN (the uprobe PMU refuses CAP_PERFMON "
             "alone and ignores kernel.perf_event_paranoid)";
      break;
    case EINVAL:
      if (uses_semaphore) {
        msg +=
            "\nhint: the kernel may not support semaphores (ref_ctr_offset), "
            "or another probe uses a different semaphore offset at the same address";
      }
      break;
    case EMFILE:
    case ENFILE:
      msg += "\nhint: too many open files: raise the limit (ulimit -n) or trace fewer probes";
      break;
    case ENOENT:
      msg += " (the file does not exist)";
      break;
    case ESRCH:
      msg += " (the process is gone)";
      break;
    default:
      break;
  }
  return Error(msg);
}

Result<PerfEvent> PerfEvent::open(perf_event_attr& attr, const EventTarget& target) {
  unsigned long flags = PERF_FLAG_FD_CLOEXEC;
  int fd;
  do {
    fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, target.pid, target.cpu, -1, flags));
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Error("", errno);
  UniqueFd owner(fd);
  uint64_t id = 0;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) return errno_error("PERF_EVENT_IOC_ID failed");
  return PerfEvent(std::move(owner), id);
}

Result<PerfEvent> PerfEvent::open_uprobe(const KernelFeatures& features, const UprobeConfig& config,
                                         const EventTarget& target, const EventOptions& options) {
  std::string what = std::string(config.retprobe ? "uretprobe" : "uprobe") + " at " + config.path +
                     ":" + hex(config.file_offset);
  if (!config.label.empty()) what = config.label;
  if (config.tracepoint_id == 0 && config.semaphore_offset != 0 &&
      !features.semaphores_supported()) {
    return Error("cannot attach " + what + " with semaphore at " + hex(config.semaphore_offset) +
                 ": the kernel's uprobe PMU has no ref_ctr_offset (needs Linux 4.20+)");
  }
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  set_common(attr, target, options);
  if (config.tracepoint_id != 0) {
    // Everything about the probe is in its tracefs definition; such events
    // carry no user pointer, so they can be inherited (see event_set.h).
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = config.tracepoint_id;
    if (config.raw) attr.sample_type |= PERF_SAMPLE_RAW;
    if (config.period) attr.sample_type |= PERF_SAMPLE_PERIOD;
  } else {
    attr.type = features.uprobe_type;
    attr.config1 = reinterpret_cast<uint64_t>(config.path.c_str());
    attr.config2 = config.file_offset;
    if (config.retprobe) attr.config |= uint64_t{1} << features.retprobe_bit;
    if (config.semaphore_offset != 0)
      attr.config |= config.semaphore_offset << features.ref_ctr_shift;
  }
  if (config.regs_mask != 0) {
    attr.sample_type |= PERF_SAMPLE_REGS_USER;
    attr.sample_regs_user = config.regs_mask;
  }
  if (config.stack_bytes != 0) {
    attr.sample_type |= PERF_SAMPLE_STACK_USER;
    attr.sample_stack_user = config.stack_bytes;
  }
  if (config.callchain_depth != 0) {
    // User frames only: the kernel part of a uprobe's chain is the trap
    // handler, and kernel frames need a laxer perf_event_paranoid.
    attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_kernel = 1;
    attr.sample_max_stack = static_cast<uint16_t>(config.callchain_depth);
  }
  Result<PerfEvent> event = open(attr, target);
  if (!event) {
    int err = event.error().errno_value();
    if (err == 0) return event.error().context("cannot open " + what);
    if (err == EOVERFLOW && config.callchain_depth != 0) {
      return Error("cannot open perf event for " + what + ": a callchain of " +
                   std::to_string(config.callchain_depth) +
                   " frames is deeper than the kernel allows\nhint: use a smaller -g fp,DEPTH "
                   "or raise sysctl kernel.perf_event_max_stack");
    }
    return perf_open_error(err, what, config.semaphore_offset != 0);
  }
  return event;
}

// A software dummy event: it never counts, but carries side records (comm,
// fork, exit) when asked and can own a ring buffer. User-only, because the
// kernel refuses kernel-side events under a strict perf_event_paranoid.
perf_event_attr PerfEvent::dummy_attr(const EventTarget& target, const EventOptions& options) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  set_common(attr, target, options);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return attr;
}

Result<PerfEvent> PerfEvent::open_dummy(perf_event_attr& attr, const EventTarget& target,
                                        const std::string& what) {
  Result<PerfEvent> event = open(attr, target);
  if (!event) {
    int err = event.error().errno_value();
    if (err == 0) return event.error().context("cannot open " + what);
    return perf_open_error(err, what, false);
  }
  return event;
}

Result<PerfEvent> PerfEvent::open_tracking(const EventTarget& target, const EventOptions& options,
                                           uint32_t tracepoint_id) {
  perf_event_attr attr = dummy_attr(target, options);
  if (tracepoint_id != 0) {
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = tracepoint_id;
    attr.sample_period = 0;  // counts the hits, writes no sample
  }
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  // Each new task's namespaces (with its fork record): the PID namespace of
  // a process gone before the recorder could read /proc (drainer.h). Root's
  // (CAP_SYS_ADMIN); without, the namespace of such a process is unknown.
  attr.namespaces = 1;
  // The kernel marks a context holding an inherited PERF_SAMPLE_READ event
  // as one it must not swap at a context switch (perf_event.h).
  if (options.no_context_swap && target.inherit) attr.sample_type |= PERF_SAMPLE_READ;
  if (options.mmap) {
    // Executable mappings only (mmap_data stays 0), as MMAP2 records: the
    // file's build-id (or device and inode), protection and flags.
    attr.mmap = 1;
    attr.mmap2 = 1;
    attr.build_id = options.mmap_build_id ? 1 : 0;
  }
  Result<PerfEvent> event = open_dummy(attr, target, "process tracking (comm/fork/exit)");
  if (!event && event.error().errno_value() == EACCES) {
    attr.namespaces = 0;
    event = open_dummy(attr, target, "process tracking (comm/fork/exit)");
  }
  return event;
}

Result<PerfEvent> PerfEvent::open_anchor(const EventTarget& target, const EventOptions& options) {
  perf_event_attr attr = dummy_attr(target, options);
  // The recorder's own comm changes: EventSet::flush_pending_losses(), which
  // enables it. Until then it writes nothing: with comm the kernel also sends
  // it the recording thread's forks, and a full ring would count one it could
  // not hold among the samples' losses.
  attr.disabled = 1;
  attr.comm = 1;
  return open_dummy(attr, target, "the ring buffer of CPU " + std::to_string(target.cpu));
}

Status PerfEvent::enable() const {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_ENABLE, 0) != 0)
    return errno_error("cannot enable perf event");
  return Status::success();
}

Status PerfEvent::disable() const {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_DISABLE, 0) != 0)
    return errno_error("cannot disable perf event");
  return Status::success();
}

Status PerfEvent::set_output_fd(int buffer_fd) const {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_SET_OUTPUT, buffer_fd) != 0) {
    return errno_error("cannot redirect perf event into the CPU's ring buffer");
  }
  return Status::success();
}

}  // namespace usdt::record
