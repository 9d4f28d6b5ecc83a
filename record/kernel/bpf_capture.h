// The BPF capture program of one recording (record/kernel/bpf/): loaded from
// the skeleton embedded at build time, its maps sized for the recording,
// attached to the sites' perf events, armed at the start and disarmed at
// the end. Everything it creates (program, maps, links) is owned here and
// released by the destructor, on every way out; nothing is pinned, so a
// killed recorder's objects go with its descriptors.
//
// Requirements (bpf_capture_permission() and load() say what is missing): BPF
// ring buffers (Linux 5.8), BPF cookies on perf-event links (5.15),
// sleepable uprobe programs (6.1) and bpf_copy_from_user_str (6.12), and
// CAP_BPF with CAP_PERFMON, or root. The uprobe events themselves still need
// what the sampled path needs (root or CAP_SYS_ADMIN for the uprobe PMU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "record/kernel/bpf/capture_abi.h"

struct usdt_capture;
struct usdt_capture_faulting;

namespace usdt::record {

struct BpfCaptureOptions {
  size_t ring_bytes = 16u << 20;  // a power of two, at least a page
  uint32_t string_bytes = 256;    // --string-bytes
  uint32_t max_sites = 4096;      // site ids below this can be planned and attached
  // Load the faulting program at the start (sites that read memory or
  // strings): its load takes a few tenths of a second, so only when
  // needed; attach() loads it later for a site that needs it.
  bool faulting = true;
  // Call stacks (-g): USDT_BPF_STACKS_*, the callchain's depth (fp) and the
  // bytes of stack copied (dwarf, a multiple of 8).
  uint32_t call_graph = USDT_BPF_STACKS_NONE;
  uint32_t stack_depth = 127;
  uint32_t stack_bytes = 8192;
};

// Whether this process has the capabilities the capture program needs: ""
// when it has, else which it lacks. (What the kernel lacks, load() says.)
std::string bpf_capture_permission();

// Whether a site's plan reads user memory (a memory operand or a string).
bool reads_memory(const usdt_bpf_site& plan);

class BpfCapture {
 public:
  // Loads the program with its maps sized by options; the error says what
  // the kernel refused.
  static Result<BpfCapture> load(const BpfCaptureOptions& options);

  BpfCapture(BpfCapture&&) noexcept;
  BpfCapture& operator=(BpfCapture&&) noexcept;
  ~BpfCapture();

  // Stores the plan of a site; fails for an id at or past max_sites.
  Status set_site(uint32_t site_id, const usdt_bpf_site& plan);
  // Attaches the program to a perf event (a uprobe of the PMU or a tracefs
  // uprobe event) with the site id as its cookie, through a BPF link kept
  // until the destructor. The kernel keeps one program per tracefs event,
  // so a site is attached once, on any one of its events.
  // faulting: the site reads memory or strings (reads_memory()): the
  // sleepable program, whose reads fault absent pages in as the kernel's
  // fetch-args do (loaded now if it was not); the other never faults, and
  // never needs to.
  Status attach(uint32_t site_id, int perf_event_fd, bool faulting);
  // Whether hits write records (set once every event is enabled).
  void arm(bool on);

  int ring_fd() const;
  size_t ring_bytes() const { return ring_bytes_; }
  uint32_t max_sites() const { return max_sites_; }
  uint32_t cpu_count() const { return cpu_count_; }
  // What the records carry for call stacks (USDT_BPF_STACKS_*).
  uint32_t call_graph() const { return call_graph_; }
  // Records of a site that did not fit in the ring on a CPU (index into the
  // possible CPUs), counted by the program.
  uint64_t lost(uint32_t site_id, uint32_t cpu) const;

 private:
  BpfCapture() = default;
  // Maps the lost counters (read-only).
  Status map_lost_counters();
  // Loads the faulting program's object, with the maps of the first.
  Status load_faulting();
  void release();

  usdt_capture* skeleton_ = nullptr;
  usdt_capture_faulting* faulting_skeleton_ = nullptr;
  std::vector<UniqueFd> links_;              // BPF links: closing one detaches it
  const volatile uint64_t* lost_ = nullptr;  // the lost map, mapped read-only
  size_t lost_mapped_ = 0;
  size_t ring_bytes_ = 0;
  uint32_t max_sites_ = 0;
  uint32_t cpu_count_ = 0;
  uint32_t call_graph_ = USDT_BPF_STACKS_NONE;
  bool armed_ = false;
};

}  // namespace usdt::record
