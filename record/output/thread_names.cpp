#include "record/output/thread_names.h"

#include <algorithm>

namespace usdt::record {

void ThreadNames::name(uint32_t tid, uint32_t pid, const std::string& comm) {
  Thread& t = threads_[tid];
  if (t.pid != pid) t = Thread{};  // a tid reused by another process
  t.pid = pid;
  t.comm = comm;
  t.exited_ns = 0;
}

void ThreadNames::apply(const format::ProcessEvent& p) {
  using format::ProcessEventKind;
  switch (p.kind) {
    case ProcessEventKind::comm:
      name(p.tid, p.pid, p.comm);
      break;
    case ProcessEventKind::exec:
      // The exec'ing thread becomes the process's only one, and names it;
      // an exec keeps the PID namespace.
      name(p.pid, p.pid, p.comm);
      if (p.tid != p.pid) name(p.tid, p.pid, p.comm);
      break;
    case ProcessEventKind::fork: {
      auto parent = threads_.find(p.parent_tid);
      if (parent == threads_.end()) break;
      threads_[p.tid] = Thread{p.pid, parent->second.comm, 0};
      break;
    }
    case ProcessEventKind::pid_namespace: {
      Thread& t = threads_[p.tid];
      t.pid = p.pid;
      t.in_namespace = true;
      t.ns_pid = p.ns_pid;
      t.ns_tid = p.ns_tid;
      t.pid_namespace = p.pid_namespace;
      break;
    }
    case ProcessEventKind::exit: {
      auto it = threads_.find(p.tid);
      if (it != threads_.end() && it->second.pid == p.pid) it->second.exited_ns = p.time_ns;
      break;
    }
    case ProcessEventKind::mmap:
      break;
  }
}

std::vector<format::ProcessEvent> ThreadNames::carried(uint64_t time) const {
  std::vector<format::ProcessEvent> out;
  out.reserve(threads_.size());
  for (const auto& [tid, t] : threads_) {
    format::ProcessEvent e;
    e.time_ns = time;
    e.kind = format::ProcessEventKind::comm;
    e.pid = t.pid;
    e.tid = tid;
    e.comm = t.comm;
    if (!t.comm.empty()) out.push_back(e);
    if (!t.in_namespace) continue;
    e.kind = format::ProcessEventKind::pid_namespace;
    e.comm.clear();
    e.ns_pid = t.ns_pid;
    e.ns_tid = t.ns_tid;
    e.pid_namespace = t.pid_namespace;
    out.push_back(std::move(e));
  }
  // comm (1) before pid namespace (6) of one thread.
  std::sort(out.begin(), out.end(),
            [](const format::ProcessEvent& a, const format::ProcessEvent& b) {
              if (a.pid != b.pid) return a.pid < b.pid;
              if (a.tid != b.tid) return a.tid < b.tid;
              return a.kind < b.kind;
            });
  return out;
}

void ThreadNames::forget_exited_before(uint64_t time) {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->second.exited_ns != 0 && it->second.exited_ns <= time) {
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace usdt::record
