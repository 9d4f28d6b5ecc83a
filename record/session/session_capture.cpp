// The session's BPF capture path (record_session.h): which path the
// recording takes, the capture program loaded with the sites' plans, and
// attached to their events as they are opened.
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "record/diagnostics.h"
#include "record/session/record_session.h"

namespace usdt::record {
namespace {

// The BPF ring: as many bytes as the perf rings of all CPUs would take, a
// power of two.
size_t capture_ring_bytes(uint32_t buffer_pages, size_t cpus) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t want = size_t{buffer_pages} * page * std::max<size_t>(cpus, 1);
  size_t bytes = page;
  while (bytes < want && bytes < (size_t{1} << 30)) bytes <<= 1;
  return bytes;
}

uint32_t capture_call_graph(const CallGraph& graph) {
  switch (graph.mode) {
    case CallGraphMode::fp:
      return USDT_BPF_STACKS_FP;
    case CallGraphMode::dwarf:
      return USDT_BPF_STACKS_DWARF;
    case CallGraphMode::none:
      break;
  }
  return USDT_BPF_STACKS_NONE;
}

// -g dwarf's records are the stack copy (8 KiB by default): the sampled
// path's rings grow to 64 MiB a CPU for them (ring_buffer_pages()). The BPF
// ring is one ring of vmalloc'd pages, each of which a record's write may
// miss in the TLB: a ring much larger than this doubled the cost of a hit on
// a VM (bench/results/stacks-latest.md), while this one holds thousands of
// records.
constexpr size_t kDwarfCaptureRingBytes = size_t{32} << 20;

// Room for the sites found at the start and for those of libraries loaded later.
constexpr uint32_t kMinCaptureSites = 4096;

}  // namespace

Result<bool> RecordSession::choose_capture(const std::vector<ResolvedSite>& resolved) {
  if (options_.capture == CaptureMode::sample) return false;
  const bool automatic = options_.capture == CaptureMode::automatic;
  const bool uprobes = follower_ != nullptr ||
                       std::any_of(resolved.begin(), resolved.end(), [](const ResolvedSite& r) {
                         return r.kind != format::ProbeKind::tracepoint;
                       });
  if (!uprobes) {
    // Nothing the BPF path captures: tracepoints are sampled on both paths.
    if (automatic && !options_.quiet) {
      std::cerr << "usdt-record: capturing with perf samples: tracepoints are recorded through "
                   "perf samples\n";
    }
    return false;
  }
  std::string why_not = bpf_capture_permission();
  if (why_not.empty()) {
    // The kernel says what it lacks by refusing the program: loaded once, here.
    BpfCaptureOptions options;
    options.ring_bytes = capture_ring_bytes(options_.buffer_pages, features_.cpus.size());
    if (options_.call_graph.mode == CallGraphMode::dwarf && !options_.buffer_pages_given) {
      options.ring_bytes = std::max(options.ring_bytes, kDwarfCaptureRingBytes);
    }
    options.call_graph = capture_call_graph(options_.call_graph);
    options.stack_depth = options_.call_graph.depth;
    options.stack_bytes = options_.call_graph.stack_bytes;
    options.string_bytes = options_.string_bytes;
    options.max_sites =
        std::max<uint32_t>(kMinCaptureSites, static_cast<uint32_t>(resolved.size()) + 1024);
    // (A site of a library loaded later that needs it loads it then.)
    options.faulting = !options_.strings.empty() ||
                       std::any_of(resolved.begin(), resolved.end(), [](const ResolvedSite& r) {
                         return std::any_of(r.args.begin(), r.args.end(), [](const ArgSpec& a) {
                           return a.location == ArgLocation::memory;
                         });
                       });
    Result<BpfCapture> capture = BpfCapture::load(options);
    if (capture) {
      bpf_.emplace(std::move(*capture));
    } else {
      why_not = capture.error().message();
    }
  }
  if (!why_not.empty() && !automatic) {
    return Error("cannot capture with BPF: " + why_not +
                 "\nhint: use --capture sample (or auto) for perf samples");
  }
  if (automatic && !options_.quiet) {
    if (why_not.empty()) {
      std::cerr << "usdt-record: capturing with BPF: a BPF program reads the arguments at each "
                   "hit (--capture sample for perf samples)\n";
    } else {
      std::cerr << "usdt-record: capturing with perf samples: " << why_not << '\n';
    }
  }
  return why_not.empty();
}

Status RecordSession::load_capture() {
  Result<std::unique_ptr<BpfSource>> source = BpfSource::create(*bpf_);
  if (!source) return source.error();
  bpf_source_ = std::move(*source);
  return add_capture_sites(0);
}

Status RecordSession::add_capture_sites(uint32_t first) {
  for (uint32_t id = first; id < plan_.sites.size(); ++id) {
    const PlannedSite& site = plan_.sites[id];
    if (!site.bpf) continue;
    if (Status s = bpf_->set_site(id, site.bpf_site); !s) return s;
    bpf_source_->add_site(id, site.bpf_site.arg_count,
                          static_cast<uint16_t>(site.sampling.string_mask), site.caller_repair);
  }
  return Status::success();
}

Status RecordSession::attach_capture_hosts() {
  if (!bpf_) return Status::success();
  for (auto [site_id, fd] : events_->take_bpf_hosts()) {
    // A tracefs event has one program for all its perf events.
    if (!bpf_attached_.insert(site_id).second) continue;
    const ResolvedSite& r = plan_.sites[site_id].resolved;
    const UprobeConfig& config = attach_[site_id].config;
    if (config.tracepoint_id != 0) {
      // Not on a traced task's event: the kernel gives a task's inherited
      // events its parent event's program, and a thread's exit then takes
      // the program off the tracefs event for every task (measured on
      // 6.18: a program attached to the traced task's event stopped when
      // another thread of it exited). An event of the recorder itself is
      // never inherited; where the recorder maps the file too (libc), the
      // program leaves the recorder's own hits out (capture_abi.h).
      Result<PerfEvent> host = PerfEvent::open_uprobe(
          features_, config, EventTarget{getpid(), -1, false}, EventOptions{});
      if (!host) return host.error().context(r.provider + ":" + r.name);
      fd = host->fd();
      capture_hosts_.push_back(std::move(*host));
    }
    if (Status s = bpf_->attach(site_id, fd, reads_memory(plan_.sites[site_id].bpf_site)); !s) {
      return s.error().context(r.provider + ":" + r.name);
    }
  }
  return Status::success();
}

}  // namespace usdt::record
