// What a recording may leave behind, for the tests of its ways out: the
// recorder's tracefs uprobe events (group usdtrec_PID_START in
// /sys/kernel/tracing/uprobe_events), an event of a foreign group that must
// survive it, and the processes of the traced command.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration_support.h"

namespace usdt::itest {

// Mounts tracefs when it is absent (the recorder mounts it too).
void ensure_tracefs();
// Writes one command to uprobe_events; false when the kernel refuses it.
bool write_uprobe_events(const std::string& command);
std::vector<std::string> uprobe_events();
// The lines of uprobe_events that belong to the recorder with this pid.
std::vector<std::string> events_of(pid_t recorder_pid);
std::string text(const std::vector<std::string>& lines);
// Waits up to 15 s for the recorder's events to leave uprobe_events (its
// background detacher deletes them after it exited, about 80 ms per site);
// returns what is still there (empty: all gone).
std::vector<std::string> wait_until_gone(pid_t recorder_pid);

// An event of a group that is not the recorder's, on the very file the
// recordings probe: defined for the case, never enabled, and checked to be
// still there after the recorder has gone; deleted by the test itself.
class ForeignEvent {
 public:
  ForeignEvent();
  ~ForeignEvent();
  ForeignEvent(const ForeignEvent&) = delete;
  ForeignEvent& operator=(const ForeignEvent&) = delete;
  bool defined() const;
  void remove_and_check();

 private:
  std::string name_;
  bool removed_ = false;
};

// After the recorder has gone: its events leave within 15 s, the foreign
// one stays.
void check_cleaned_up(pid_t recorder_pid, ForeignEvent& foreign);

// Starts `usdt-record ARGS` with its stdin, stdout and stderr on pipes and
// waits until it says it is recording; its events must then be defined.
Process start_recording(const std::vector<std::string>& args);

// The children of a process (/proc/PID/task/PID/children).
std::vector<pid_t> children_of(pid_t pid);
// Waits until the process has exited (a pidfd becomes readable), for at
// most `limit`; true when it has (or never existed).
bool wait_for_exit(pid_t pid, std::chrono::seconds limit);
// Whether a process with this pid runs (not a zombie).
bool running(pid_t pid);

}  // namespace usdt::itest
