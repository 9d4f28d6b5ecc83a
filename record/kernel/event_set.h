// All perf events of one recording and the per-CPU ring buffers they write
// into. On each CPU the first event opened owns the CPU's ring buffer; every
// other event of that CPU is redirected into it (PERF_EVENT_IOC_SET_OUTPUT),
// so the reader drains one buffer per CPU however many probes and threads
// there are.
//
// Targets (perf_event_open(2)): a task watched on every CPU (pid = task,
// cpu = N; with inherit, threads and children created later are followed:
// the kernel refuses to mmap an inherited event opened with cpu = -1, so
// perf-style per-task-per-CPU events it is), or the whole system (pid = -1,
// cpu = N: every process that maps a probed file, also those started later;
// needs root or CAP_SYS_ADMIN for the uprobe PMU).
//
// Uprobe-PMU events cannot be inherited: the kernel re-reads the probe's
// path from the user pointer in attr.config1 when it copies the event into a
// new thread or child, in the new task's memory, and clone() then fails with
// EFAULT (seen on Linux 6.18: the traced program's pthread_create failed).
// Tracefs uprobe events (opened as tracepoints) carry no pointer and are
// inherited: with -- and -p the session opens those per traced task, so
// that only the traced processes take the breakpoint; without tracefs it
// falls back to system-wide uprobe-PMU events and the Drainer's pid filter.
// Kernel tracepoints (record/resolve/tracepoint_sites.h) are opened the same way as
// tracefs events: per traced task, or per CPU for all with -a.
//
// Each CPU's buffer is mapped on an "anchor": a dummy event on the recorder
// itself, which never exits, so the buffer never reports POLLHUP while
// traced tasks come and go. Per CPU and task, one tracking event reports
// COMM/FORK/EXIT (and MMAP2 when asked) into a second, small "side-band"
// buffer of the CPU, whose every record wakes the reader: a software dummy,
// or a counting event of the first site's tracepoint, so that a task's
// events are all of one PMU (PerfEvent::open_tracking). A library a
// traced process maps is seen at once (record/resolve/mapping_follower.h), not at
// the next wakeup of the samples' buffer (a quarter full) or the next
// poll. perf does the same for its side-band events. An inherited tracking
// event also keeps the kernel from swapping the contexts of a traced task's
// children at a context switch, which can leave a child unrecorded
// (PerfEvent::open_tracking).
// Everything is opened disabled; enable_all() turns it on at once.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "common/result.h"
#include "record/kernel/kernel_features.h"
#include "record/kernel/perf_event.h"
#include "record/kernel/ring_buffer.h"

namespace usdt::record {

struct SiteAttach {
  uint32_t site_id = 0;
  UprobeConfig config;
  // The BPF capture program is attached to the site (bpf_capture.h): its
  // events write no samples. A uprobe-PMU site is then opened on the first
  // CPU only: each such event is a probe of its own, and the program runs
  // at every hit of one, on any CPU (a tracefs event's program is the
  // event's, shared by all its perf events).
  bool bpf = false;
};

// A kernel event id and the site it belongs to (format::kNoSite for tracking).
using EventIdSite = std::pair<uint64_t, uint32_t>;

class EventSet {
 public:
  // Maps one ring buffer of buffer_pages data pages (a power of two) per CPU.
  // identifier: whether records carry the event id (EventOptions).
  // track_mmaps (-g): the tracking events report executable mmaps too.
  static Result<EventSet> create(const KernelFeatures& features, size_t buffer_pages,
                                 bool identifier, bool track_mmaps = false);

  // Opens, on every CPU and disabled, a tracking event (when tracking) and
  // every site's event for the task (or, with pid -1, system-wide). On
  // failure nothing of this call stays open.
  Status add_target(pid_t pid, bool inherit, bool tracking, const std::vector<SiteAttach>& sites);

  // Enables every event (the ready point); enable_all() after add_target()
  // of a late task enables those too.
  Status enable_all();
  // Enables the events opened since event_count() was first (sites
  // attached during the recording).
  Status enable_from(size_t first);
  void disable_all();

  EventSet(EventSet&&) noexcept = default;
  EventSet& operator=(EventSet&&) noexcept = default;
  // Closes the events from several threads at once: each uprobe close waits
  // for an RCU grace period in the kernel, which one by one made the exit of
  // a recording of a few dozen sites take seconds.
  ~EventSet();

  // The samples' buffers (one per CPU), then the side-band buffers (one per
  // CPU), from index side_band_from().
  std::vector<RingBuffer>& buffers() { return buffers_; }
  const std::vector<RingBuffer>& buffers() const { return buffers_; }
  size_t side_band_from() const { return features_.cpus.size(); }
  // The BPF sites' events opened since the last call, one per site and
  // add_target(): (site id, fd) to attach the capture program to.
  std::vector<std::pair<uint32_t, int>> take_bpf_hosts();
  // Every id opened so far, in order; new ones are appended.
  const std::vector<EventIdSite>& ids() const { return ids_; }
  size_t event_count() const { return events_.size(); }
  // The kernel reports a ring's lost records lazily: as a LOST record
  // written in front of the next record that fits there. Losses at the end
  // of a recording, with nothing written after them, would go unreported.
  // Each CPU's anchors carry the calling thread's comm changes (it must be
  // the thread that called create()): this renames it to its own name on
  // every CPU in turn, which writes a COMM record, and any pending LOST in
  // front of it, into both rings of each CPU. Call it after disable_all()
  // and a drain that emptied the rings (a COMM record that did not fit would
  // be counted among the losses), before the last drain; the COMM records
  // carry the recorder's own pid.
  void flush_pending_losses() const;
  // Closes the events of one site, each through close_one(fd), leaving the
  // object's bookkeeping alone: only for a process that is about to exit
  // (the background detacher).
  void close_site_fds(uint32_t site_id, const std::function<void(int)>& close_one) const;
  // The descriptors close_site_fds closes, of every site.
  std::vector<int> site_fds() const;

 private:
  EventSet(KernelFeatures features, size_t buffer_pages)
      : features_(std::move(features)), buffer_pages_(buffer_pages) {}

  KernelFeatures features_;
  size_t buffer_pages_ = 0;
  EventOptions options_;
  // Side-band records of one CPU (comm, fork, exit, mmap): rare and small.
  static constexpr size_t kSideBandPages = 64;
  std::vector<PerfEvent> anchors_;   // as buffers_
  std::vector<PerfEvent> events_;
  std::vector<RingBuffer> buffers_;  // cpu index: samples; cpus + cpu index: side band
  std::vector<EventIdSite> ids_;
  // Per event: the site whose tracefs event it holds (close_site_fds), or
  // format::kNoSite.
  std::vector<uint32_t> closed_with_;
  std::vector<std::pair<uint32_t, int>> bpf_hosts_;
};

}  // namespace usdt::record
