// A thread's numbers in its own PID namespace (a container's), from /proc
// (proc(5)): /proc/PID/ns/pid names the namespace (its inode), and the
// NStgid and NSpid lines of /proc/PID/task/TID/status list the thread's
// process and thread ids in each namespace it is in, from the outermost
// one this process sees to its own, innermost, last.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace usdt::record {

struct ThreadNamespace {
  uint64_t pid_namespace = 0;  // the inode of its PID namespace; 0: unknown
  uint32_t ns_pid = 0;         // its process id there; 0: unknown
  uint32_t ns_tid = 0;         // its thread id there; 0: unknown
};

// The inode of a process's PID namespace ("self" for this one); 0 when it
// cannot be read (the process is gone).
uint64_t pid_namespace_of(std::string_view pid);

// Where thread tid of process pid lives, when that is not the PID namespace
// own_namespace (this recorder's): its namespace and numbers; all 0 when
// the thread was gone before it could be read, so that its namespace is
// unknown. nullopt when it lives in own_namespace.
std::optional<ThreadNamespace> thread_namespace(pid_t pid, pid_t tid, uint64_t own_namespace);

// The last number of a "NSpid:\t1234\t1" line of a status file (the
// innermost namespace's); 0 when the line is missing or bad.
uint32_t innermost_id(std::string_view status, std::string_view field);

}  // namespace usdt::record
