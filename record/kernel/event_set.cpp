#include "record/kernel/event_set.h"

#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "formats/trace_types.h"

namespace usdt::record {

Result<EventSet> EventSet::create(const KernelFeatures& features, size_t buffer_pages,
                                  bool identifier, bool track_mmaps) {
  if (buffer_pages == 0 || (buffer_pages & (buffer_pages - 1)) != 0) {
    return Error("the buffer size must be a power of two pages, got " +
                 std::to_string(buffer_pages));
  }
  EventSet set(features, buffer_pages);
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  set.options_.identifier = identifier;
  set.options_.mmap = track_mmaps;
  set.options_.mmap_build_id = track_mmaps && features.mmap_build_id;
  set.options_.no_context_swap = features.inherit_sample_read;
  // Samples: wake the reader when a quarter of the buffer is full: few
  // wakeups, and three quarters of headroom while it drains.
  set.options_.wakeup_bytes = static_cast<uint32_t>(buffer_pages * page / 4);
  for (int cpu : features.cpus) {
    Result<PerfEvent> anchor = PerfEvent::open_anchor(EventTarget{0, cpu, false}, set.options_);
    if (!anchor) return anchor.error();
    Result<RingBuffer> buffer = RingBuffer::map(anchor->fd(), buffer_pages);
    if (!buffer) return buffer.error().context("CPU " + std::to_string(cpu));
    set.anchors_.push_back(std::move(*anchor));
    set.buffers_.push_back(std::move(*buffer));
  }
  // Then the side-band buffers, whose every record wakes the reader, so that
  // a new mapping is seen at once. A pass reads every buffer up to one
  // moment (record/session/drainer.h), so a sample is unwound against the mappings
  // up to its time whichever CPU's buffer each came in.
  EventOptions side = set.options_;
  side.wakeup_bytes = 1;
  for (int cpu : features.cpus) {
    Result<PerfEvent> anchor = PerfEvent::open_anchor(EventTarget{0, cpu, false}, side);
    if (!anchor) return anchor.error();
    Result<RingBuffer> buffer = RingBuffer::map(anchor->fd(), kSideBandPages);
    if (!buffer) return buffer.error().context("CPU " + std::to_string(cpu) + " side band");
    set.anchors_.push_back(std::move(*anchor));
    set.buffers_.push_back(std::move(*buffer));
  }
  return set;
}

Status EventSet::add_target(pid_t pid, bool inherit, bool tracking,
                            const std::vector<SiteAttach>& sites) {
  // Opened here first, committed to events_ only when the whole task is in.
  std::vector<PerfEvent> opened;
  std::vector<EventIdSite> ids;
  std::vector<uint32_t> closed_with;
  std::vector<std::pair<uint32_t, size_t>> hosts;  // BPF site, index in opened
  for (size_t i = 0; i < features_.cpus.size(); ++i) {
    EventTarget target{pid, features_.cpus[i], inherit};
    const size_t cpus = features_.cpus.size();
    const int buffer_fd = buffers_[i].fd();
    if (tracking) {
      // On the first site's tracepoint when there is one (open_tracking):
      // then it holds that site's tracefs event too, and is closed with it.
      const SiteAttach* host =
          !sites.empty() && sites.front().config.tracepoint_id != 0 ? &sites.front() : nullptr;
      Result<PerfEvent> event =
          PerfEvent::open_tracking(target, options_, host ? host->config.tracepoint_id : 0);
      if (!event) return event.error();
      if (Status s = event->set_output_fd(buffers_[cpus + i].fd()); !s) return s;
      ids.emplace_back(event->id(), format::kNoSite);
      closed_with.push_back(host ? host->site_id : format::kNoSite);
      opened.push_back(std::move(*event));
    }
    for (const SiteAttach& site : sites) {
      if (site.bpf && i > 0 && site.config.tracepoint_id == 0) continue;
      Result<PerfEvent> event = PerfEvent::open_uprobe(features_, site.config, target, options_);
      if (!event) return event.error();
      if (site.bpf && i == 0) hosts.emplace_back(site.site_id, opened.size());
      if (Status s = event->set_output_fd(buffer_fd); !s) return s;
      ids.emplace_back(event->id(), site.site_id);
      closed_with.push_back(site.site_id);
      opened.push_back(std::move(*event));
    }
  }
  for (const auto& [site_id, index] : hosts) bpf_hosts_.emplace_back(site_id, opened[index].fd());
  for (PerfEvent& e : opened) events_.push_back(std::move(e));
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  closed_with_.insert(closed_with_.end(), closed_with.begin(), closed_with.end());
  return Status::success();
}

std::vector<std::pair<uint32_t, int>> EventSet::take_bpf_hosts() {
  std::vector<std::pair<uint32_t, int>> out;
  out.swap(bpf_hosts_);
  return out;
}

Status EventSet::enable_all() {
  for (const PerfEvent& e : events_) {
    if (Status s = e.enable(); !s) return s;
  }
  return Status::success();
}

Status EventSet::enable_from(size_t first) {
  for (size_t i = first; i < events_.size(); ++i) {
    if (Status s = events_[i].enable(); !s) return s;
  }
  return Status::success();
}

EventSet::~EventSet() {
  constexpr size_t kClosers = 32;
  if (events_.size() < 4) return;
  std::vector<std::thread> closers;
  size_t per = (events_.size() + kClosers - 1) / kClosers;
  for (size_t start = 0; start < events_.size(); start += per) {
    size_t end = std::min(events_.size(), start + per);
    auto close_range = [this, start, end] {
      for (size_t i = start; i < end; ++i) events_[i] = PerfEvent::closed();
    };
    try {
      closers.emplace_back(close_range);
    } catch (...) {
      close_range();  // no thread to spare: close them here
    }
  }
  for (std::thread& t : closers) t.join();
}

void EventSet::close_site_fds(uint32_t site_id, const std::function<void(int)>& close_one) const {
  for (size_t i = 0; i < events_.size() && i < closed_with_.size(); ++i) {
    if (closed_with_[i] == site_id) close_one(events_[i].fd());
  }
}

std::vector<int> EventSet::site_fds() const {
  std::vector<int> fds;
  fds.reserve(events_.size());
  for (const PerfEvent& e : events_) fds.push_back(e.fd());
  return fds;
}

void EventSet::disable_all() {
  for (const PerfEvent& e : events_) (void)e.disable();
}

void EventSet::flush_pending_losses() const {
  cpu_set_t original;
  char name[16] = {};  // TASK_COMM_LEN
  if (sched_getaffinity(0, sizeof original, &original) != 0) return;
  if (prctl(PR_GET_NAME, name) != 0) return;
  for (const PerfEvent& anchor : anchors_) (void)anchor.enable();
  for (int cpu : features_.cpus) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    // The thread runs on cpu when this returns (the kernel migrates it
    // first); a CPU it may not run on (a cpuset) keeps its pending count.
    if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
    (void)prctl(PR_SET_NAME, name);
  }
  (void)sched_setaffinity(0, sizeof original, &original);
}

}  // namespace usdt::record
