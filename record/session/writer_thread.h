// The thread that encodes, compresses and writes the trace: it owns the
// output (record/output/trace_sink.h: a file, a series of files, a flight
// recorder) while recording and writes every batch the drain loop queues
// through it.
// A write failure (disk full, I/O error) is kept, raised as failed() for the
// drain loop to stop on, and later batches are discarded so the producer is
// never blocked by a dead consumer.
//
// With Priority::idle the thread runs in SCHED_IDLE while it keeps up
// (thread_priority.h): a workload that keeps every CPU busy is not slowed by
// the encoding, which waits for a free CPU. The drain loop raises it to
// normal priority when it falls behind (BatchQueue's consumer-needed hook at
// a push: kRaiseRecords records waiting, a full queue, or the queue's lock
// held; keep_up() after every pass: a batch waiting a second, or a chunk
// unflushed for two), and it goes back to idle once it has emptied the
// queue. finish() raises it first, so the end of a recording never waits for
// a free CPU.
//
// Neither thread lets an exception out (it would end the recorder in
// std::terminate, with its tracefs events and the traced command left
// behind): an exception in the writer is kept like a write error; one in
// the watchdog stops the watchdog, raises the writer for good and is kept
// too; both make failed() true so that the recording stops cleanly.
//
// An idle thread that holds a lock while other programs keep every CPU busy
// holds it for as long as the load lasts, and the drain loop may need the
// same lock without knowing it: the drain loop's brk() was seen waiting
// hundreds of milliseconds for the process's memory map lock, held by the
// idle writer's munmap() (its kernel code preempted), while the ring
// buffers overflowed. So a watchdog thread raises the writer when a pass of the
// drain loop (pass_begins() to keep_up()) has lasted kStalledPass: whatever
// held the drain loop, the writer then gets its CPU time and lets go.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "common/result.h"
#include "record/output/trace_sink.h"
#include "record/session/batch_queue.h"

namespace usdt::record {

// Whether an idle writer is behind: a batch has waited in the queue for
// `flush_interval`, or what it appended has gone unflushed for twice that
// (it flushes once a second, at the latest a second after its last batch).
bool writer_is_behind(std::chrono::steady_clock::time_point now,
                      std::optional<std::chrono::steady_clock::time_point> oldest_queued,
                      std::optional<std::chrono::steady_clock::time_point> unflushed_since,
                      std::chrono::milliseconds flush_interval);

class WriterThread {
 public:
  enum class Priority { normal, idle };
  // Called by the writer (before each batch) and by the watchdog (at each
  // look), for tests that make them throw; empty in the recorder.
  struct Hooks {
    std::function<void()> before_batch;
    std::function<void()> watchdog_look;
  };
  // flush_interval: how long decoded events may sit in the output's pending
  // chunk (usdt-record --flush-interval). A recorder killed by SIGKILL (or a
  // machine that crashes) loses at most this much, and a reader that follows
  // the file (usdt-report top) sees events this much later; the writer
  // itself only checks chunk age when appends arrive, so a quiet recording
  // is flushed from here. An idle writer is raised when a batch has waited
  // this long.
  WriterThread(std::unique_ptr<TraceSink> sink, BatchQueue& queue,
               Priority priority = Priority::normal, Hooks hooks = {},
               std::chrono::milliseconds flush_interval = kDefaultFlushInterval);
  static constexpr std::chrono::milliseconds kDefaultFlushInterval{1000};
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;
  // Joins (closing the queue) if finish() was not called.
  ~WriterThread();

  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // The output is full (--max-size): the recording should stop.
  bool full() const { return full_.load(std::memory_order_relaxed); }

  // Closes the queue, waits for the thread to write what is left, then writes
  // the symbols of the files in stacks (object blocks) and the summary.
  // Returns the first error of the whole run: after a write error (or an
  // exception in the writer) no summary is written; after an exception in
  // the watchdog the file is completed first.
  Status finish(const format::TraceSummary& summary,
                const std::vector<format::ObjectTable>& objects = {});

  // From the drain loop, at every pass: raises an idle thread that has let a
  // batch wait, or its chunk go unflushed, longer than it does with a CPU
  // (writer_is_behind). The push that would have raised it may never come
  // (a burst, then quiet), and while other programs keep every CPU busy a
  // SCHED_IDLE thread barely runs: the events would stay in memory, not in
  // the file, for as long as the load lasts.
  // It also ends the pass that pass_begins() began.
  void keep_up(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  // From the drain loop, when a pass begins (its wait for events is over).
  void pass_begins() {
    pass_began_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                      std::memory_order_relaxed);
  }

  // The writer thread's id (0 before it started), for tests and /proc.
  pid_t tid() const { return tid_.load(); }

  // Only after finish(): the output belongs to the thread until then.
  OutputReport output_report() const {
    return thread_.joinable() ? OutputReport{} : sink_->report();
  }
  // Only after finish(): whether the file got its end (summary, index).
  bool trace_finished() const { return trace_finished_; }

 private:
  // The thread's body: write_batches() inside the exception boundary.
  void run();
  void write_batches();
  // Keeps the first error of the writer thread and makes failed() true.
  void fail(Error error);
  // The watchdog's loop (Priority::idle only): raises the writer when a
  // pass has lasted kStalledPass, until stop_watchdog().
  void watch_passes();
  void watch_passes_locked(std::unique_lock<std::mutex>& lock);
  void stop_watchdog();
  // From the drain loop: the thread must run now.
  void raise();
  // From the thread itself, when the queue is empty.
  void lower();

  std::unique_ptr<TraceSink> sink_;
  BatchQueue& queue_;
  const Priority priority_;
  const std::chrono::milliseconds flush_interval_;
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> idle_{false};
  std::atomic<bool> failed_{false};
  std::atomic<bool> full_{false};
  std::atomic<bool> lowering_allowed_{true};  // false once the watchdog is gone
  // When the thread first appended after its last flush, as steady_clock
  // ticks; 0 while everything it appended is flushed.
  std::atomic<int64_t> unflushed_since_{0};
  // When the drain loop's current pass began, as steady_clock ticks; 0
  // between passes.
  std::atomic<int64_t> pass_began_{0};
  Hooks hooks_;
  bool trace_finished_ = false;
  std::optional<Error> error_;           // the writer thread's
  std::optional<Error> watchdog_error_;  // the watchdog's
  std::thread thread_;
  std::mutex watchdog_mutex_;
  std::condition_variable watchdog_wake_;
  bool watchdog_stops_ = false;
  std::thread watchdog_;
};

}  // namespace usdt::record
