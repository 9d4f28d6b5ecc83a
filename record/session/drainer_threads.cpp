// The drainer's tables of threads and processes (drainer.h): which
// processes are traced (the pid filter and the forks it follows), which
// threads were seen and named, their PID namespaces, and how exits trim
// the tables so that process churn does not grow them.
#include <unistd.h>

#include <optional>

#include "record/session/drainer.h"

namespace usdt::record {

// Looked up at the thread's first event, while it most likely still runs;
// the record takes the event's time, so that it comes first (process
// records come before events of the same time: FORMAT.md section 4).
void Drainer::on_new_thread(uint32_t pid, uint32_t tid, uint64_t time) {
  if (!namespace_lookup_) return;
  std::optional<ThreadNamespace> ns = namespace_lookup_(pid, tid);
  if (ns && ns->pid_namespace == 0) {
    // Gone before it could be read: its namespace is known when the kernel
    // told it at its fork, and its numbers there when they were read then.
    auto known = namespace_at_fork_.find(uint64_t{pid} << 32 | tid);
    if (known != namespace_at_fork_.end()) {
      if (known->second.pid_namespace == own_pid_namespace_) return;
      *ns = known->second;
    }
  }
  if (!ns) return;
  format::ProcessEvent& p = batch_.processes.emplace_back();
  p.time_ns = time;
  p.kind = format::ProcessEventKind::pid_namespace;
  p.pid = pid;
  p.tid = tid;
  p.ns_pid = ns->ns_pid;
  p.ns_tid = ns->ns_tid;
  p.pid_namespace = ns->pid_namespace;
  ++namespace_records_;
}

void Drainer::count_threads(const format::ProcessEvent& p) {
  if (p.kind == format::ProcessEventKind::fork) {
    if (p.pid != p.parent_pid) {
      if (traced(p.pid)) live_threads_[p.pid] = 1;
    } else if (auto it = live_threads_.find(p.pid); it != live_threads_.end()) {
      ++it->second;
    }
    return;
  }
  if (p.kind != format::ProcessEventKind::exit) return;
  exited_now_.push_back(uint64_t{p.pid} << 32 | p.tid);
  auto it = live_threads_.find(p.pid);
  if (it == live_threads_.end() || --it->second != 0) return;
  live_threads_.erase(it);
  processes_ended_now_.push_back(p.pid);
}

void Drainer::forget_exited() {
  for (uint64_t thread : exited_before_) {
    seen_threads_.erase(thread);
    namespace_at_fork_.erase(thread);
    named_threads_.erase(static_cast<uint32_t>(thread));
    if (thread == last_thread_) last_thread_ = ~uint64_t{0};
  }
  // A lost fork record would leave a process's threads undercounted, and it
  // would be forgotten while it runs: with losses, traced processes stay.
  // (A pid given to a new traced process since is counted again: kept.)
  if (lost_process_records_ == 0) {
    for (uint32_t pid : processes_ended_before_) {
      if (live_threads_.count(pid) == 0) traced_.erase(pid);
    }
    if (!processes_ended_before_.empty()) have_last_traced_ = false;
  }
  exited_before_.swap(exited_now_);
  exited_now_.clear();
  processes_ended_before_.swap(processes_ended_now_);
  processes_ended_now_.clear();
}

std::vector<std::pair<uint32_t, uint32_t>> Drainer::unnamed_threads() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint64_t thread : seen_threads_) {
    uint32_t tid = static_cast<uint32_t>(thread);
    if (named_threads_.count(tid) == 0) out.emplace_back(static_cast<uint32_t>(thread >> 32), tid);
  }
  return out;
}

void Drainer::set_pid_filter(const std::vector<pid_t>& roots, uint32_t first_site) {
  filter_ = true;
  first_filtered_site_ = first_site;
  for (pid_t pid : roots) traced_.insert(static_cast<uint32_t>(pid));
}

const format::ProcessEvent* Drainer::apply_process(const format::ProcessEvent& p) {
  // The recorder's own renames (EventSet::flush_pending_losses).
  if (p.pid == self_pid_ && p.kind == format::ProcessEventKind::comm) return nullptr;
  if (p.kind == format::ProcessEventKind::fork && p.pid != p.parent_pid &&
      (!filter_ || traced(p.parent_pid)) && traced_.insert(p.pid).second) {
    if (keep_new_processes_) new_processes_.push_back(static_cast<pid_t>(p.pid));
    ++forked_processes_;
  }
  count_threads(p);
  if (p.kind == format::ProcessEventKind::pid_namespace) {
    // The kernel's, at a fork: kept for the thread's first event. A traced
    // thread's first event may be read only after it exited (a pass drains
    // when a ring fills or the recording ends), too late for /proc: its ids
    // in another namespace are read now.
    ThreadNamespace known{p.pid_namespace, 0, 0};
    if (p.pid_namespace != own_pid_namespace_ && namespace_lookup_ && traced(p.pid)) {
      std::optional<ThreadNamespace> now = namespace_lookup_(p.pid, p.tid);
      if (now && now->pid_namespace == p.pid_namespace) known = *now;
    }
    namespace_at_fork_[uint64_t{p.pid} << 32 | p.tid] = known;
    return nullptr;
  }
  if (!p.comm.empty()) named_threads_.insert(p.tid);
  if (p.kind == format::ProcessEventKind::mmap) {
    if (watch_mappings_) new_mappings_.push_back(p);
    if (stacks_ == nullptr) return nullptr;  // written only with stacks (FORMAT.md)
  }
  batch_.processes.push_back(p);
  if (stacks_ != nullptr) stacks_->complete(batch_.processes.back());
  return &batch_.processes.back();
}

std::vector<pid_t> Drainer::take_new_processes() {
  std::vector<pid_t> out;
  out.swap(new_processes_);
  return out;
}

}  // namespace usdt::record
