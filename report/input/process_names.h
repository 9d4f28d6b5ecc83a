// Names of processes and threads as the trace's process records tell them
// (comm, exec, fork), current as of the last record fed in. Names are
// interned: lookups return a small index, not a string copy. A pid or tid
// the trace never named has no name (kNoName), never a guess.
//
// Keys carry a domain (the file index when files come from different hosts,
// 0 otherwise) because pids of different hosts are unrelated.
//
// A thread of a process in another PID namespace than the recorder's (a
// container) also has its numbers there (format 1.8 pid namespace records):
// kept per thread and per process until a fork gives the number to another.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "common/flat_map.h"

namespace usdt::report {

// A thread's numbers in its own PID namespace. All 0: it ran in another
// namespace, whose numbers the recorder could not read (it was gone).
struct NamespaceIds {
  uint32_t ns_pid = 0;
  uint32_t ns_tid = 0;
  uint64_t pid_namespace = 0;  // the namespace's inode

  bool known() const { return ns_pid != 0; }
};

class ProcessNames {
 public:
  static constexpr uint32_t kNoName = 0xffffffffu;

  static uint64_t key(uint32_t domain, uint32_t id) { return (uint64_t{domain} << 32) | id; }

  void on_process(uint32_t domain, const format::ProcessEvent& p);

  // Name index of a thread (falls back to its process's name).
  uint32_t thread_name(uint32_t domain, uint32_t pid, uint32_t tid) const {
    const uint32_t* n = threads_.find(key(domain, tid));
    if (n != nullptr) return *n;
    return process_name(domain, pid);
  }
  uint32_t process_name(uint32_t domain, uint32_t pid) const {
    const uint32_t* n = processes_.find(key(domain, pid));
    return n == nullptr ? kNoName : *n;
  }
  const std::string& name(uint32_t index) const { return names_[index]; }

  // The numbers in its own PID namespace of a thread, or of a process's
  // main thread; nullptr when the trace places it in the recorder's.
  const NamespaceIds* thread_namespace(uint32_t domain, uint32_t tid) const {
    return thread_ns_.find(key(domain, tid));
  }
  const NamespaceIds* process_namespace(uint32_t domain, uint32_t pid) const {
    return process_ns_.find(key(domain, pid));
  }
  // Whether any thread is in another namespace: a loop that shows them asks
  // per event only then.
  bool any_namespace() const { return thread_ns_.size() != 0; }

  // The process a named thread belongs to.
  uint32_t pid_of_thread(uint32_t domain, uint32_t tid) const {
    const uint32_t* p = thread_pid_.find(key(domain, tid));
    return p == nullptr ? tid : *p;
  }

  // Every named thread and process, for export metadata: f(domain, id, name).
  template <typename F>
  void for_each_process(F&& f) const {
    processes_.for_each([&](uint64_t k, uint32_t n) {
      f(static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k), names_[n]);
    });
  }
  template <typename F>
  void for_each_thread(F&& f) const {
    threads_.for_each([&](uint64_t k, uint32_t n) {
      f(static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k), names_[n]);
    });
  }

 private:
  uint32_t intern(const std::string& comm);

  FlatMap<uint32_t> threads_;
  FlatMap<uint32_t> processes_;
  FlatMap<uint32_t> thread_pid_;
  FlatMap<NamespaceIds> thread_ns_;
  FlatMap<NamespaceIds> process_ns_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> index_of_;
};

}  // namespace usdt::report
