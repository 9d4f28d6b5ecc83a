#include "record/attach/tracefs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_io.h"
#include "common/unique_fd.h"

namespace usdt::record {
namespace {

constexpr const char* kTracingDir = "/sys/kernel/tracing";
constexpr const char* kDebugfsTracingDir = "/sys/kernel/debug/tracing";

bool has_uprobe_events(const std::string& dir) {
  return access((dir + "/uprobe_events").c_str(), F_OK) == 0;
}

// Every usdt-record that uses tracefs holds a shared flock on this file from
// before it looks for tracefs until it (and its background detacher, which
// inherits the descriptor) is gone. The recorder that mounted tracefs
// unmounts it only when it can take the lock exclusively: no other recorder
// is using the mount, or is between finding it and defining its events.
// One descriptor per process, so that several TracefsMounts of one process
// share one lock. Where the file cannot be opened (no root: then tracefs
// cannot be mounted by us either) nothing is locked.
constexpr const char* kUseLockPath = "/run/usdt-trace-tracefs.lock";

}  // namespace

int TracefsMount::use_lock_fd() {
  static UniqueFd fd = [] {
    UniqueFd f(::open(kUseLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (f && flock(f.get(), LOCK_SH) != 0) f.reset();
    return f;
  }();
  return fd.get();
}

Result<TracefsMount> TracefsMount::open() {
  use_lock_fd();  // before looking: see kUseLockPath
  if (has_uprobe_events(kTracingDir)) return TracefsMount(kTracingDir, false);
  if (has_uprobe_events(kDebugfsTracingDir)) return TracefsMount(kDebugfsTracingDir, false);
  // A tracefs mounted but closed to us (mode 0700, not root) is not absent.
  if (access(kTracingDir, X_OK) != 0 && errno == EACCES) {
    return Error(std::string("cannot access tracefs at ") + kTracingDir, EACCES);
  }
  if (mount("nodev", kTracingDir, "tracefs", 0, nullptr) != 0) {
    // Error::message() adds strerror.
    return Error(std::string("tracefs is not mounted and cannot be mounted at ") + kTracingDir,
                 errno);
  }
  TracefsMount owner(kTracingDir, true);
  if (!has_uprobe_events(kTracingDir)) {
    return Error(std::string("tracefs at ") + kTracingDir +
                 " has no uprobe_events (a kernel without CONFIG_UPROBE_EVENTS)");
  }
  return owner;
}

TracefsMount::~TracefsMount() { unmount_if_ours(); }

void TracefsMount::unmount_if_ours() {
  if (!mounted_) return;
  mounted_ = false;
  // Another recorder may have found our mount meanwhile: leave it while any
  // probe event is defined in it.
  // Another usdt-record holds the shared lock: it uses our mount, so it
  // stays (an empty tracefs at its usual place; the other recorder did not
  // mount it, so it leaves it too).
  int lock = use_lock_fd();
  if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) != 0) return;
  // Another tool (perf probe) may have defined probe events in our mount.
  Result<std::string> uprobes = read_text_file(dir_ + "/uprobe_events");
  Result<std::string> kprobes = read_text_file(dir_ + "/kprobe_events");
  bool in_use = (uprobes && !uprobes->empty()) || (kprobes && !kprobes->empty());
  if (!in_use) umount2(dir_.c_str(), MNT_DETACH);
  if (lock >= 0) flock(lock, LOCK_SH);
}

}  // namespace usdt::record
