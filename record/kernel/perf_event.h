// One perf event opened with perf_event_open(2): a uprobe on a file offset
// (through the kernel's dynamic "uprobe" PMU, or a uprobe event defined in
// tracefs, opened as a tracepoint: see record/attach/), or the dummy
// software event that carries comm/fork/exit records. Source of truth:
// include/uapi/linux/perf_event.h and kernel/events/core.c.
//
// A uprobe event is described by attr.config1 = pointer to the path,
// attr.config2 = file offset of the probed instruction, and in attr.config the
// retprobe bit and the semaphore's file offset (ref_ctr_offset) at the bit
// positions the PMU's format/ directory gives (KernelFeatures). With a
// ref_ctr_offset the kernel itself increments the probe's semaphore in every
// process that maps the file while the event exists.
//
// Every event samples TID | TIME | CPU, plus PERF_SAMPLE_IDENTIFIER when a
// recording has more than one probe site (with one, every sample is that
// site's, and 8 bytes less per sample is less work in the traced program),
// with sample_id_all so that non-sample records (LOST, COMM, FORK, EXIT) carry
// the same trailer; uprobes add REGS_USER and STACK_USER only when the site's
// arguments need them. Events are opened disabled and enabled all at once.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/result.h"
#include "common/unique_fd.h"
#include "record/kernel/kernel_features.h"

namespace usdt::record {

// What all events of one recording share: the ring buffer watermark and
// whether records carry the event identifier (then the sample's first u64
// and, through sample_id_all, the last u64 of any other record).
struct EventOptions {
  uint32_t wakeup_bytes = 0;
  bool identifier = true;
  // -g: the tracking events also report executable mmaps (PERF_RECORD_MMAP2,
  // never data mappings), with the file's build-id when mmap_build_id (the
  // kernel fills it in, 5.12+: KernelFeatures::mmap_build_id).
  bool mmap = false;
  bool mmap_build_id = false;
  // Inherited tracking events sample PERF_SAMPLE_READ, which keeps the
  // kernel from swapping task contexts (open_tracking); only where the kernel
  // allows it (KernelFeatures::inherit_sample_read).
  bool no_context_swap = false;
};

// The sample_type bits every event has.
constexpr uint64_t sample_id_type(bool identifier) {
  return PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
         (identifier ? uint64_t{PERF_SAMPLE_IDENTIFIER} : 0);
}

// What to probe and what to sample when it fires.
struct UprobeConfig {
  std::string path;               // file that holds the probe
  uint64_t file_offset = 0;       // of the probed instruction
  uint64_t semaphore_offset = 0;  // file offset of the semaphore, 0 = none
  bool retprobe = false;
  uint64_t regs_mask = 0;    // sample_regs_user; 0 = no REGS_USER
  uint32_t stack_bytes = 0;  // sample_stack_user (multiple of 8); 0 = no STACK_USER
  // A tracefs uprobe event (record/attach/) instead of the uprobe PMU: its
  // tracepoint id; the probe itself (path, offsets) is in its definition.
  uint32_t tracepoint_id = 0;
  bool raw = false;  // PERF_SAMPLE_RAW: the event's fetch-args, or a tracepoint's fields
  // What errors call the event when it is not a uprobe ("tracepoint sched:sched_switch").
  std::string label;
  // PERF_SAMPLE_PERIOD: a kernel tracepoint may count a hit as more than one
  // (__perf_count: sched_stat_runtime counts its nanoseconds); with a sample
  // period of 1 the kernel then writes one sample per unit counted, tens of
  // thousands of copies of one hit. With PERIOD sampled it writes one sample
  // carrying the count (kernel/events/core.c, perf_swevent_event).
  bool period = false;
  // -g fp: PERF_SAMPLE_CALLCHAIN of user frames only (exclude_callchain_kernel),
  // at most this many entries (sample_max_stack); 0 = no callchain.
  uint32_t callchain_depth = 0;
};

// Whom to watch: pid -1 = every process (then cpu must be >= 0).
struct EventTarget {
  pid_t pid = -1;
  int cpu = -1;
  bool inherit = false;  // follow threads and children created after the open
};

class PerfEvent {
 public:
  // Opens a disabled uprobe event. Fails with one line
  // naming the probe location and, for permission errors, a "hint:" line.
  static Result<PerfEvent> open_uprobe(const KernelFeatures& features, const UprobeConfig& config,
                                       const EventTarget& target, const EventOptions& options);

  // Opens a disabled dummy software event that only reports COMM (also on
  // exec), FORK and EXIT records of the target (and with options.mmap its
  // executable MMAP2 records).
  //
  // With a tracepoint_id (a site's tracefs event or kernel tracepoint) it is
  // a counting event of that tracepoint instead, which never samples: then
  // all of a task's events are of one PMU. Each PMU a task has events of
  // costs it at every context switch (a software dummy beside the sites'
  // tracepoints was measurably dearer per switch: bench/workloads/pingpong.c).
  //
  // Inherited, with options.no_context_swap, it also asks for
  // PERF_SAMPLE_READ (it never samples, so no record changes): the kernel
  // then never swaps the contexts of two clone tasks (a parent and its
  // child, or two children of one parent) at a switch between them, which it
  // otherwise does instead of switching their events out and in. The uprobe
  // filter of a tracefs event knows a task's events by the task they were
  // made for (event->hw.target), not the task that holds them: a child that
  // exits holding its sibling's swapped context closes the sibling's events,
  // the filter then finds none for the sibling's memory, and the kernel
  // removes the breakpoints from the sibling, which runs on unrecorded (and
  // uncounted: `perf stat` on a per-task tracefs event misses such children
  // the same way).
  static Result<PerfEvent> open_tracking(const EventTarget& target, const EventOptions& options,
                                         uint32_t tracepoint_id = 0);

  // Opens an enabled dummy event that reports nothing, to hold a ring buffer.
  // (The buffer's watermark is the one of the event it is mapped on.)
  static Result<PerfEvent> open_anchor(const EventTarget& target, const EventOptions& options);

  // An owner of nothing, to close an event by assignment.
  static PerfEvent closed() { return PerfEvent(UniqueFd(), 0); }

  PerfEvent(PerfEvent&&) noexcept = default;
  PerfEvent& operator=(PerfEvent&&) noexcept = default;

  int fd() const { return fd_.get(); }
  uint64_t id() const { return id_; }  // PERF_EVENT_IOC_ID: the identifier in its records

  Status enable() const;
  Status disable() const;
  // Sends this event's records into the ring buffer mapped on target's fd
  // (both must be on the same CPU).
  Status set_output(const PerfEvent& target) const { return set_output_fd(target.fd()); }
  Status set_output_fd(int buffer_fd) const;

 private:
  PerfEvent(UniqueFd fd, uint64_t id) : fd_(std::move(fd)), id_(id) {}
  static Result<PerfEvent> open(perf_event_attr& attr, const EventTarget& target);
  static perf_event_attr dummy_attr(const EventTarget& target, const EventOptions& options);
  static Result<PerfEvent> open_dummy(perf_event_attr& attr, const EventTarget& target,
                                      const std::string& what);
  UniqueFd fd_;
  uint64_t id_ = 0;
};

// Turns a failed perf_event_open errno into one line plus an optional
// "\nhint: ..." line. what names the event ("uprobe at /bin/x:0x1234").
Error perf_open_error(int err, const std::string& what, bool uses_semaphore);

}  // namespace usdt::record
