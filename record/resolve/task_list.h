// What /proc says about the traced processes: their threads, names, and
// whether they are still alive (proc(5)).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace usdt::record {

// The thread ids of a process (/proc/PID/task), ascending; empty if it is gone.
std::vector<pid_t> list_threads(pid_t pid);

// Every process id in /proc, ascending.
std::vector<pid_t> list_processes();

// /proc/PID/task/TID/comm without the newline; empty if unreadable.
std::string read_comm(pid_t pid, pid_t tid);

// Whether the process exists and is not a zombie.
bool process_alive(pid_t pid);

}  // namespace usdt::record
