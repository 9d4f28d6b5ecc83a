// The names of the traced threads as the recording's process records tell
// them (comm, exec, fork, exit), and the PID namespaces of those in another
// namespace than the recorder's (pid namespace records), kept so that a file that begins in the
// middle of a recording (a part of a series, a snapshot) can carry them at
// its start (formats/FORMAT.md 3.3.1, "carried process records") and read
// alone. A thread that exited is forgotten once no file to come can hold its
// events (forget_exited_before).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::record {

class ThreadNames {
 public:
  // Applies a process record, as usdt-report names threads from it.
  void apply(const format::ProcessEvent& p);
  // One comm record per known thread (exited ones too, until forgotten),
  // followed by its pid namespace record when it has one, at time, ordered
  // by pid and tid.
  std::vector<format::ProcessEvent> carried(uint64_t time) const;
  // Forgets the threads that exited at or before time.
  void forget_exited_before(uint64_t time);
  size_t size() const { return threads_.size(); }

 private:
  struct Thread {
    uint32_t pid = 0;
    std::string comm;
    uint64_t exited_ns = 0;  // 0: running
    // Its pid namespace record (format 1.8), when it lives in another one.
    bool in_namespace = false;
    uint32_t ns_pid = 0, ns_tid = 0;
    uint64_t pid_namespace = 0;
  };
  // Names tid (of pid) comm, keeping what else is known of it.
  void name(uint32_t tid, uint32_t pid, const std::string& comm);
  std::unordered_map<uint32_t, Thread> threads_;  // by tid
};

}  // namespace usdt::record
