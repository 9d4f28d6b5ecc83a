// Recorders that attach and detachers that close take turns in the kernel.
//
// Opening or closing a uprobe's perf event, and defining or deleting a
// tracefs probe event, each take one kernel-wide mutex (event_mutex); the
// close of a uprobe holds it through a grace period (FIELD-NOTES.md: about
// 80 ms per probe). A background detacher (background_detach.h) closing the
// previous recording's events one after another held a recorder that started
// meanwhile back for most of that clean-up: back-to-back recordings took
// 0.6-0.75 s from start to the first event, and with -p the hits of that
// window were neither recorded nor counted. So they take turns, through two
// flocks in /run/usdt-trace. A recorder holds both shared while it attaches
// (recorders never wait for each other): first "attach.intent", then
// "attach.lock". A detacher, for each close, takes attach.intent
// exclusively (it waits while a recorder attaches or waits to), then
// attach.lock, lets go of attach.intent, closes, and lets go of attach.lock.
// One lock would not do: flock wakes its waiters but queues nobody, and a
// detacher that locks again right after it unlocked is back in before the
// recorder it woke runs (measured: a recorder starved for the whole second
// of another's clean-up). With the intent, a recorder that starts during a
// clean-up waits for the one close in progress at most; the detacher waits
// while recorders attach. Where the lock files cannot be made (no root:
// then nothing of ours is in tracefs either) nobody waits.
#pragma once

#include <cstdint>
#include <functional>

namespace usdt::record {

// The locks' descriptors, opened on first use (-1 when they cannot be).
// Open them before forking a detacher, which inherits them and must keep
// them open.
int attach_lock_fd();
int attach_intent_fd();

// A recorder's turn: held from construction (which waits while a detacher is
// inside a close, 2 s at most) until release() or destruction.
class AttachTurn {
 public:
  static AttachTurn take();
  AttachTurn(AttachTurn&& other) noexcept
      : held_(other.held_),
        intent_(other.intent_),
        waited_ns_(other.waited_ns_),
        gave_up_(other.gave_up_) {
    other.held_ = other.intent_ = false;
  }
  AttachTurn& operator=(AttachTurn&&) = delete;
  AttachTurn(const AttachTurn&) = delete;
  ~AttachTurn() { release(); }

  void release();
  // How long take() waited for another recording's clean-up, in ns.
  uint64_t waited_ns() const { return waited_ns_; }
  // It waited its longest and went on without the turn (a detacher held it
  // all that time: stopped, or a kernel that takes that long).
  bool gave_up() const { return gave_up_; }

 private:
  AttachTurn(bool held, bool intent, uint64_t waited_ns, bool gave_up)
      : held_(held), intent_(intent), waited_ns_(waited_ns), gave_up_(gave_up) {}
  bool held_ = false;
  bool intent_ = false;
  uint64_t waited_ns_ = 0;
  bool gave_up_ = false;
};

// For a detacher: runs step (one close, one deletion) holding attach.lock
// exclusively, after the recorders attaching or waiting to are done.
void in_detach_turn(const std::function<void()>& step);

}  // namespace usdt::record
