// The tracefs uprobe events of one recording: a group of our own
// ("usdtrec_PID_START", the recorder's pid and process start time), each
// event defined through uprobe_events with its fetch-args
// (Documentation/trace/uprobetracer.rst) and opened by the caller with
// perf_event_open as a tracepoint (its id is in events/GROUP/NAME/id).
//
// Such definitions outlive their creator (disarmed, but they pin the probed
// file): the owner deletes
// them when it goes away, which the kernel allows only once no perf event
// is open on them, so the perf events must be closed first. A recorder
// killed by SIGKILL leaves its group behind: remove_stale_groups() deletes
// the groups whose owner is gone. Events of other groups are never touched.
//
// Who owns a group: whoever holds the flock on /run/usdt-trace/GROUP.lock,
// the recorder and then its background detacher (the lock belongs to the
// open file, which the detacher inherits). Without a lock file (no /run, or
// another /run: a container sharing the kernel's tracefs), the recorder's
// pid and start time in the group name tell, but only in the pid namespace
// that the name also carries: a pid of another namespace proves nothing,
// and such a group is left alone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::record {

// One field of a tracefs event's format (events/GROUP/NAME/format).
struct TraceField {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
  bool data_loc = false;  // "__data_loc char[] name": u32 offset | length << 16
};

struct TracefsEvent {
  std::string name;  // within the group
  uint32_t id = 0;   // perf_event_attr::config of the tracepoint
  std::vector<TraceField> fields;
  // The field named name; nullptr when there is none.
  const TraceField* field(const std::string& name) const;
};

// Parses an events/.../format file; only the "field:" lines matter.
Result<std::vector<TraceField>> parse_trace_format(const std::string& text);

// "usdtrec_1234_98765_4026531836": the group of a recorder, unique while it
// runs: its pid, its start time and its pid namespace (the inode of
// /proc/self/ns/pid; 0 leaves it out, as recorders before it did).
std::string recorder_group_name(pid_t pid, uint64_t start_ticks, uint64_t pid_namespace = 0);
// The inode of this process's pid namespace; 0 when unknown.
uint64_t own_pid_namespace();
// The start time of a process in clock ticks since boot (/proc/PID/stat
// field 22); 0 when the process does not exist.
uint64_t process_start_ticks(pid_t pid);

class UprobeEventGroup {
 public:
  // A group for this process. Nothing is written until add().
  static UprobeEventGroup for_this_process(std::string tracefs_dir);

  UprobeEventGroup(UprobeEventGroup&& other) noexcept;
  UprobeEventGroup& operator=(UprobeEventGroup&&) = delete;
  UprobeEventGroup(const UprobeEventGroup&) = delete;
  // Deletes every event this group defined (see delete_all()).
  ~UprobeEventGroup();

  // Defines "p:GROUP/NAME PROBE ARGS" (or "r:" for a return probe), where
  // probe is "PATH:0xOFFSET[(0xSEMAPHORE)]", and reads back its id and
  // format. The error quotes the kernel's own explanation from
  // tracing/error_log when there is one.
  Result<TracefsEvent> add(const std::string& name, bool retprobe, const std::string& probe,
                           const std::string& fetch_args);

  // Deletes the events; false when some could not be (a perf event still
  // open on them). Safe to call again.
  bool delete_all();
  // Deletes one event (no perf event may be open on it); false on failure.
  bool delete_one(const std::string& name);
  // The names defined and not yet deleted.
  const std::vector<std::string>& names() const { return names_; }
  // Forgets the events without deleting them: another process deletes them.
  // (The lock stays held by the other process's copy of the file.)
  void release() {
    names_.clear();
    lock_.reset();
  }

  const std::string& group() const { return group_; }
  const std::string& tracefs_dir() const { return dir_; }
  // The descriptor of the group's lock, which a detacher holds until the
  // group's events are deleted.
  int lock_fd() const { return lock_.get(); }

  // Deletes the events of usdtrec_* groups whose recorder is gone (killed
  // before it could clean up, or its background detacher is still at work);
  // says so on err. Events still open are left (the kernel refuses).
  static void remove_stale_groups(const std::string& tracefs_dir, std::ostream& err);
  // The same for a recording that needs no tracefs events of its own (-a
  // with registers only, no tracefs): in a tracefs that is mounted (a
  // killed recorder's events are in the kernel whether or not tracefs is
  // mounted, but a recorder that defined them had it mounted, and an
  // unmounted one is not mounted just for this).
  static void remove_stale_groups_if_mounted(std::ostream& err);

 private:
  UprobeEventGroup(std::string dir, std::string group)
      : dir_(std::move(dir)), group_(std::move(group)) {}
  void take_lock();
  std::string dir_;
  std::string group_;
  std::vector<std::string> names_;  // defined, not yet deleted
  UniqueFd lock_;                   // flock held while this group is in use
};

}  // namespace usdt::record
