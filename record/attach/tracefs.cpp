#include "record/attach/tracefs.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_io.h"

namespace usdt::record {
namespace {

constexpr const char* kTracingDir = "/sys/kernel/tracing";
constexpr const char* kDebugfsTracingDir = "/sys/kernel/debug/tracing";

bool has_uprobe_events(const std::string& dir) {
  return access((dir + "/uprobe_events").c_str(), F_OK) == 0;
}

}  // namespace

Result<TracefsMount> TracefsMount::open() {
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
  Result<std::string> uprobes = read_text_file(dir_ + "/uprobe_events");
  Result<std::string> kprobes = read_text_file(dir_ + "/kprobe_events");
  bool in_use = (uprobes && !uprobes->empty()) || (kprobes && !kprobes->empty());
  if (!in_use) umount2(dir_.c_str(), MNT_DETACH);
}

}  // namespace usdt::record
