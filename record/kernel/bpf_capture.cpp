#include "record/kernel/bpf_capture.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "record/kernel/bpf/usdt_capture.skel.h"
#include "record/kernel/bpf/usdt_capture_faulting.skel.h"

namespace usdt::record {
namespace {

// libbpf's own messages, kept for the error of a failed load instead of
// printed: the last lines say what the verifier or the kernel refused.
std::string& libbpf_log() {
  static std::string log;
  return log;
}

int keep_libbpf_message(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[512];
  int n = std::vsnprintf(line, sizeof line, format, args);
  std::string& log = libbpf_log();
  log += line;
  if (log.size() > 4096) log.erase(0, log.size() - 4096);
  return n;
}

// The last non-empty line libbpf printed, for an error's context.
std::string last_libbpf_line() {
  std::istringstream in(libbpf_log());
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Bits of CapEff in /proc/self/status.
uint64_t effective_capabilities() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  }
  return 0;
}

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

bool has_capability(uint64_t caps, int cap) { return (caps >> cap) & 1; }

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// The inode of the initial PID namespace (PROC_PID_INIT_INO, linux/proc_ns.h).
constexpr uint64_t kInitialPidNamespace = 0xEFFFFFFCu;

// A recorder in a PID namespace of its own (a container) names tasks by
// that namespace's numbers, as perf gives them: the program is told which.
void set_pid_namespace(usdt_bpf_config& config) {
  struct stat ns;
  if (stat("/proc/self/ns/pid", &ns) != 0 || ns.st_ino == kInitialPidNamespace) return;
  config.pidns_dev = ns.st_dev;
  config.pidns_ino = ns.st_ino;
}

// The programs' configuration (their .rodata), set before they are loaded.
void configure(usdt_bpf_config& config, const BpfCaptureOptions& options, uint32_t cpus) {
  config.string_bytes = options.string_bytes;
  // Wake the reader when a quarter of the ring is unread (as the perf rings').
  config.wakeup_bytes = static_cast<uint32_t>(options.ring_bytes / 4);
  config.cpu_count = cpus;
  config.self_tgid = static_cast<uint32_t>(getpid());
  config.call_graph = options.call_graph;
  config.stack_depth = std::min<uint32_t>(options.stack_depth, USDT_BPF_FP_DEPTH_MAX);
  config.stack_bytes =
      std::min<uint32_t>((options.stack_bytes + 7) & ~7u, USDT_BPF_DWARF_BYTES_MAX);
  set_pid_namespace(config);
}

}  // namespace

std::string bpf_capture_permission() {
  const uint64_t caps = effective_capabilities();
  if (has_capability(caps, kCapSysAdmin)) return "";
  if (has_capability(caps, kCapBpf) && has_capability(caps, kCapPerfmon)) return "";
  return "it needs CAP_BPF and CAP_PERFMON, or root";
}

Result<BpfCapture> BpfCapture::load(const BpfCaptureOptions& options) {
  libbpf_set_print(keep_libbpf_message);
  libbpf_log().clear();
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return Error("cannot count the possible CPUs", -cpus);
  BpfCapture capture;
  capture.skeleton_ = usdt_capture__open();
  if (capture.skeleton_ == nullptr) {
    return Error("cannot open the BPF capture program: " + last_libbpf_line(), errno);
  }
  usdt_capture* skel = capture.skeleton_;
  capture.ring_bytes_ = options.ring_bytes;
  capture.max_sites_ = options.max_sites;
  capture.cpu_count_ = static_cast<uint32_t>(cpus);
  capture.call_graph_ = options.call_graph;
  configure(const_cast<usdt_bpf_config&>(skel->rodata->config), options, capture.cpu_count_);
  int err = 0;
  if ((err = bpf_map__set_max_entries(skel->maps.plans, options.max_sites)) != 0 ||
      (err = bpf_map__set_max_entries(skel->maps.records,
                                      static_cast<uint32_t>(options.ring_bytes))) != 0 ||
      (err = bpf_map__set_max_entries(skel->maps.lost, options.max_sites * capture.cpu_count_)) !=
          0) {
    return Error("cannot size the BPF capture maps", -err);
  }
  if ((err = usdt_capture__load(skel)) != 0) {
    return Error("the kernel refused the BPF capture program: " + last_libbpf_line(), -err);
  }
  if (Status s = capture.map_lost_counters(); !s) return s.error();
  if (options.faulting) {
    if (Status s = capture.load_faulting(); !s) return s.error();
  }
  return capture;
}

Status BpfCapture::map_lost_counters() {
  const size_t lost_bytes = size_t{8} * max_sites_ * cpu_count_;
  lost_mapped_ = (lost_bytes + page_size() - 1) / page_size() * page_size();
  void* lost =
      mmap(nullptr, lost_mapped_, PROT_READ, MAP_SHARED, bpf_map__fd(skeleton_->maps.lost), 0);
  if (lost == MAP_FAILED) {
    lost_mapped_ = 0;
    return errno_error("cannot map the BPF lost counters");
  }
  lost_ = static_cast<const volatile uint64_t*>(lost);
  return Status::success();
}

Status BpfCapture::load_faulting() {
  libbpf_log().clear();
  faulting_skeleton_ = usdt_capture_faulting__open();
  if (faulting_skeleton_ == nullptr) {
    return Error("cannot open the faulting BPF capture program: " + last_libbpf_line(), errno);
  }
  usdt_capture_faulting* skel = faulting_skeleton_;
  const_cast<usdt_bpf_config&>(skel->rodata->config) = skeleton_->rodata->config;
  int err = 0;
  // The first object's maps: the same plans, ring, lost counters and scratch.
  if ((err = bpf_map__reuse_fd(skel->maps.plans, bpf_map__fd(skeleton_->maps.plans))) != 0 ||
      (err = bpf_map__reuse_fd(skel->maps.records, bpf_map__fd(skeleton_->maps.records))) != 0 ||
      (err = bpf_map__reuse_fd(skel->maps.lost, bpf_map__fd(skeleton_->maps.lost))) != 0 ||
      (err = bpf_map__reuse_fd(skel->maps.task_scratch,
                               bpf_map__fd(skeleton_->maps.task_scratch))) != 0) {
    return Error("cannot share the BPF capture maps", -err);
  }
  // Reads that may fault pages in: a sleepable program.
  if ((err = bpf_program__set_flags(skel->progs.usdt_capture_faulting, BPF_F_SLEEPABLE)) != 0) {
    return Error("cannot prepare the faulting BPF capture program", -err);
  }
  if ((err = usdt_capture_faulting__load(skel)) != 0) {
    return Error("the kernel refused the faulting BPF capture program: " + last_libbpf_line(),
                 -err);
  }
  if (armed_) arm(true);
  return Status::success();
}

BpfCapture::BpfCapture(BpfCapture&& other) noexcept { *this = std::move(other); }

BpfCapture& BpfCapture::operator=(BpfCapture&& other) noexcept {
  if (this == &other) return *this;
  release();
  skeleton_ = std::exchange(other.skeleton_, nullptr);
  faulting_skeleton_ = std::exchange(other.faulting_skeleton_, nullptr);
  links_ = std::move(other.links_);
  lost_ = std::exchange(other.lost_, nullptr);
  lost_mapped_ = std::exchange(other.lost_mapped_, 0);
  ring_bytes_ = other.ring_bytes_;
  max_sites_ = other.max_sites_;
  cpu_count_ = other.cpu_count_;
  call_graph_ = other.call_graph_;
  armed_ = other.armed_;
  return *this;
}

BpfCapture::~BpfCapture() { release(); }

void BpfCapture::release() {
  arm(false);
  links_.clear();  // detached before the programs go
  if (lost_ != nullptr) munmap(const_cast<uint64_t*>(lost_), lost_mapped_);
  lost_ = nullptr;
  if (faulting_skeleton_ != nullptr) usdt_capture_faulting__destroy(faulting_skeleton_);
  faulting_skeleton_ = nullptr;
  if (skeleton_ != nullptr) usdt_capture__destroy(skeleton_);
  skeleton_ = nullptr;
}

Status BpfCapture::set_site(uint32_t site_id, const usdt_bpf_site& plan) {
  if (site_id >= max_sites_) {
    return Error("the BPF capture program holds " + std::to_string(max_sites_) +
                 " probe sites, and this is site " + std::to_string(site_id + 1));
  }
  int err = bpf_map__update_elem(skeleton_->maps.plans, &site_id, sizeof site_id, &plan,
                                 sizeof plan, BPF_ANY);
  if (err != 0) return Error("cannot store the plan of a probe site", -err);
  return Status::success();
}

bool reads_memory(const usdt_bpf_site& plan) {
  for (size_t i = 0; i < plan.arg_count && i < USDT_BPF_MAX_ARGS; ++i) {
    const usdt_bpf_arg& a = plan.args[i];
    if (a.kind == USDT_BPF_ARG_MEM || (a.flags & USDT_BPF_ARG_STRING) != 0) return true;
  }
  return false;
}

Status BpfCapture::attach(uint32_t site_id, int perf_event_fd, bool faulting) {
  LIBBPF_OPTS(bpf_link_create_opts, opts);
  opts.perf_event.bpf_cookie = site_id;
  if (faulting && faulting_skeleton_ == nullptr) {
    // A site of a library loaded later that reads memory.
    if (Status s = load_faulting(); !s) return s;
  }
  bpf_program* program =
      faulting ? faulting_skeleton_->progs.usdt_capture_faulting : skeleton_->progs.usdt_capture;
  int fd = bpf_link_create(bpf_program__fd(program), perf_event_fd, BPF_PERF_EVENT, &opts);
  if (fd < 0) return Error("cannot attach the BPF capture program to a probe's event", -fd);
  links_.emplace_back(fd);
  return Status::success();
}

void BpfCapture::arm(bool on) {
  if (skeleton_ != nullptr) armed_ = on;
  if (skeleton_ != nullptr && skeleton_->bss != nullptr) {
    __atomic_store_n(&skeleton_->bss->armed, on ? 1u : 0u, __ATOMIC_RELEASE);
  }
  if (faulting_skeleton_ != nullptr && faulting_skeleton_->bss != nullptr) {
    __atomic_store_n(&faulting_skeleton_->bss->armed, on ? 1u : 0u, __ATOMIC_RELEASE);
  }
}

int BpfCapture::ring_fd() const { return bpf_map__fd(skeleton_->maps.records); }

uint64_t BpfCapture::lost(uint32_t site_id, uint32_t cpu) const {
  if (lost_ == nullptr || site_id >= max_sites_ || cpu >= cpu_count_) return 0;
  return __atomic_load_n(&lost_[size_t{site_id} * cpu_count_ + cpu], __ATOMIC_RELAXED);
}

}  // namespace usdt::record
