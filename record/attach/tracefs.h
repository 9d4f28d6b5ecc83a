// Where the kernel's tracefs lives, mounting it when it is absent. tracefs
// holds uprobe_events, where probes with fetch-args (kernel memory reads at
// the hit) are defined (Documentation/trace/uprobetracer.rst).
//
// A tracefs we mounted is ours: it is unmounted when the owner goes away
// (lazily, so that a reader that still holds a file open keeps it until it
// closes). A tracefs that was there before is never touched.
#pragma once

#include <string>

#include "common/result.h"

namespace usdt::record {

class TracefsMount {
 public:
  // Finds a mounted tracefs (/sys/kernel/tracing, then debugfs's tracing/),
  // or mounts one at /sys/kernel/tracing. Fails with one line naming what
  // was tried when neither works (a container, lockdown, no privileges).
  static Result<TracefsMount> open();

  TracefsMount(TracefsMount&& other) noexcept
      : dir_(std::move(other.dir_)), mounted_(other.mounted_) {
    other.mounted_ = false;
  }
  TracefsMount& operator=(TracefsMount&& other) noexcept {
    if (this != &other) {
      unmount_if_ours();
      dir_ = std::move(other.dir_);
      mounted_ = other.mounted_;
      other.mounted_ = false;
    }
    return *this;
  }
  TracefsMount(const TracefsMount&) = delete;
  ~TracefsMount();

  const std::string& dir() const { return dir_; }
  bool mounted_by_us() const { return mounted_; }
  // Unmounts a tracefs this process mounted, unless another usdt-record uses
  // it (it holds the shared lock of tracefs.cpp's kUseLockPath) or probe
  // events are still defined in it (another tool found our mount meanwhile).
  void unmount_if_ours();
  // Gives up the unmount (another process, the detacher, does it later).
  void release() { mounted_ = false; }
  // The descriptor of this process's shared lock on tracefs (tracefs.cpp),
  // -1 when there is none. A process that unmounts for us keeps it open.
  static int use_lock_fd();

 private:
  TracefsMount(std::string dir, bool mounted) : dir_(std::move(dir)), mounted_(mounted) {}
  std::string dir_;
  bool mounted_ = false;
};

}  // namespace usdt::record
