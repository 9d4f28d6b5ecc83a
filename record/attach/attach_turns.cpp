#include "record/attach/attach_turns.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace usdt::record {
namespace {

constexpr const char* kLockDir = "/run/usdt-trace";
constexpr const char* kLockPath = "/run/usdt-trace/attach.lock";
constexpr const char* kIntentPath = "/run/usdt-trace/attach.intent";
// How long a recorder waits for its turn at most, and how often it looks: a
// close takes a grace period (tens of milliseconds), a millisecond's delay
// after it is nothing.
constexpr uint64_t kLongestWaitNs = 2'000'000'000;
constexpr long kPollNs = 1'000'000;

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

// flock, again after a signal interrupted it.
bool lock(int fd, int operation) {
  int r;
  do {
    r = flock(fd, operation);
  } while (r != 0 && errno == EINTR);
  return r == 0;
}

// Never closed: the process's own for its lifetime, and a detacher's after
// it (a flock belongs to the open file, which both share, but the recorder
// has exited before the detacher locks it).
int open_lock(const char* path) {
  mkdir(kLockDir, 0755);
  return ::open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

}  // namespace

int attach_lock_fd() {
  static const int fd = open_lock(kLockPath);
  return fd;
}

int attach_intent_fd() {
  static const int fd = open_lock(kIntentPath);
  return fd;
}

AttachTurn AttachTurn::take() {
  const int intent = attach_intent_fd();
  const int fd = attach_lock_fd();
  if (fd < 0 || intent < 0) return AttachTurn(false, false, 0, false);
  const uint64_t from = monotonic_ns();
  bool waited = false;
  // Blocking only when the lock is taken (the time counted is a wait), and
  // not for ever: a detacher stopped inside its turn (SIGSTOP, a debugger)
  // must not stop every recording after it.
  auto take_shared = [&](int lock_fd) {
    for (;;) {
      if (lock(lock_fd, LOCK_SH | LOCK_NB)) return true;
      waited = true;
      if (monotonic_ns() - from >= kLongestWaitNs) return false;
      const timespec pause{0, kPollNs};
      nanosleep(&pause, nullptr);
    }
  };
  const bool announced = take_shared(intent);
  const bool held = announced && take_shared(fd);
  return AttachTurn(held, announced, waited ? monotonic_ns() - from : 0, !held);
}

void AttachTurn::release() {
  if (held_) lock(attach_lock_fd(), LOCK_UN);
  if (intent_) lock(attach_intent_fd(), LOCK_UN);
  held_ = intent_ = false;
}

void in_detach_turn(const std::function<void()>& step) {
  const int intent = attach_intent_fd();
  const int fd = attach_lock_fd();
  if (fd < 0 || intent < 0) {
    step();
    return;
  }
  const bool announced = lock(intent, LOCK_EX);
  const bool held = lock(fd, LOCK_EX);
  if (announced) lock(intent, LOCK_UN);
  step();
  if (held) lock(fd, LOCK_UN);
}

}  // namespace usdt::record
