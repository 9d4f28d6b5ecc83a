#include "report/input/process_names.h"

namespace usdt::report {

uint32_t ProcessNames::intern(const std::string& comm) {
  auto [it, added] = index_of_.emplace(comm, static_cast<uint32_t>(names_.size()));
  if (added) names_.push_back(comm);
  return it->second;
}

void ProcessNames::on_process(uint32_t domain, const format::ProcessEvent& p) {
  using format::ProcessEventKind;
  if (p.kind != ProcessEventKind::exit) thread_pid_[key(domain, p.tid)] = p.pid;
  switch (p.kind) {
    case ProcessEventKind::comm: {
      uint32_t n = intern(p.comm);
      threads_[key(domain, p.tid)] = n;
      // The main thread names the process; a thread-only comm (a thread
      // renamed with prctl) must not rename its process.
      if (p.tid == p.pid || processes_.find(key(domain, p.pid)) == nullptr) {
        processes_[key(domain, p.pid)] = n;
      }
      break;
    }
    case ProcessEventKind::exec: {
      uint32_t n = intern(p.comm);
      processes_[key(domain, p.pid)] = n;
      threads_[key(domain, p.pid)] = n;
      if (p.tid != p.pid) threads_[key(domain, p.tid)] = n;
      break;
    }
    case ProcessEventKind::fork: {
      // A new thread or process: its numbers are its own (a kind 6 record
      // follows when it is in another namespace), whoever had them before.
      thread_ns_.erase(key(domain, p.tid));
      if (p.pid != p.parent_pid) process_ns_.erase(key(domain, p.pid));
      // A new thread or process starts with its parent's name.
      uint32_t parent = thread_name(domain, p.parent_pid, p.parent_tid);
      if (parent == kNoName) break;
      threads_[key(domain, p.tid)] = parent;
      if (p.pid != p.parent_pid) processes_[key(domain, p.pid)] = parent;
      break;
    }
    case ProcessEventKind::exit:
      // Names stay: the summary lists processes that have exited.
      break;
    case ProcessEventKind::mmap:
      // Mappings name no thread (report/ symbolizes stacks from them).
      break;
    case ProcessEventKind::pid_namespace: {
      const NamespaceIds ids{p.ns_pid, p.ns_tid, p.pid_namespace};
      thread_ns_[key(domain, p.tid)] = ids;
      if (p.tid == p.pid || process_ns_.find(key(domain, p.pid)) == nullptr) {
        process_ns_[key(domain, p.pid)] = ids;
      }
      break;
    }
  }
}

}  // namespace usdt::report
