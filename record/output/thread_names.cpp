#include "record/output/thread_names.h"

#include <algorithm>

namespace usdt::record {

void ThreadNames::apply(const format::ProcessEvent& p) {
  using format::ProcessEventKind;
  switch (p.kind) {
    case ProcessEventKind::comm:
      threads_[p.tid] = Thread{p.pid, p.comm, 0};
      break;
    case ProcessEventKind::exec:
      // The exec'ing thread becomes the process's only one, and names it.
      threads_[p.pid] = Thread{p.pid, p.comm, 0};
      if (p.tid != p.pid) threads_[p.tid] = Thread{p.pid, p.comm, 0};
      break;
    case ProcessEventKind::fork: {
      auto parent = threads_.find(p.parent_tid);
      if (parent == threads_.end()) break;
      threads_[p.tid] = Thread{p.pid, parent->second.comm, 0};
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
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(),
            [](const format::ProcessEvent& a, const format::ProcessEvent& b) {
              return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
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
