#include "record/session/writer_thread.h"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <optional>
#include <string>

#include "record/session/thread_priority.h"

namespace usdt::record {

namespace {

// Records waiting before an idle writer is raised: 16 full batches of 8192
// events, the spares the drain loop prepares (about 6 MB with two
// arguments), a quarter of the queue's room.
constexpr size_t kRaiseRecords = 128 * 1024;

// A pass of the drain loop this long is held up (passes under heavy CPU load
// stay well below it), and the watchdog looks every kWatchInterval: a stall
// lasts at most kStalledPass + kWatchInterval before the writer is raised,
// well within what the ring buffers hold of a busy workload's events.
constexpr std::chrono::milliseconds kStalledPass{20};
constexpr std::chrono::milliseconds kWatchInterval{10};

// What an exception that reached a thread's boundary says.
std::string internal_error(const char* thread, const std::exception* e) {
  return std::string("internal error in the ") + thread + " thread: " +
         (e != nullptr ? e->what() : "unknown exception");
}

}  // namespace

WriterThread::WriterThread(std::unique_ptr<TraceSink> sink, BatchQueue& queue, Priority priority,
                           Hooks hooks, std::chrono::milliseconds flush_interval)
    : sink_(std::move(sink)),
      queue_(queue),
      priority_(priority),
      flush_interval_(flush_interval),
      hooks_(std::move(hooks)) {
  if (priority_ == Priority::idle) {
    queue_.set_consumer_needed([this] { raise(); }, kRaiseRecords);
  }
  thread_ = std::thread([this] { run(); });
  if (priority_ == Priority::idle) watchdog_ = std::thread([this] { watch_passes(); });
}

WriterThread::~WriterThread() {
  if (thread_.joinable()) {
    raise();
    queue_.close();
    thread_.join();
  }
  stop_watchdog();
}

void WriterThread::watch_passes() {
  std::unique_lock lock(watchdog_mutex_);
  try {
    watch_passes_locked(lock);
  } catch (const std::exception& e) {
    watchdog_error_ = Error(internal_error("watchdog", &e));
  } catch (...) {
    watchdog_error_ = Error(internal_error("watchdog", nullptr));
  }
  if (!watchdog_error_) return;
  // Without the watchdog an idle writer could starve: normal priority for good.
  raise();
  lowering_allowed_.store(false);
  failed_.store(true, std::memory_order_relaxed);
}

void WriterThread::watch_passes_locked(std::unique_lock<std::mutex>& lock) {
  while (!watchdog_wake_.wait_for(lock, kWatchInterval, [this] { return watchdog_stops_; })) {
    if (hooks_.watchdog_look) hooks_.watchdog_look();
    const int64_t began = pass_began_.load(std::memory_order_relaxed);
    if (began == 0 || !idle_.load()) continue;
    const auto now = std::chrono::steady_clock::now();
    if (now - std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(began)) >=
        kStalledPass) {
      raise();
    }
  }
}

void WriterThread::stop_watchdog() {
  if (!watchdog_.joinable()) return;
  {
    std::lock_guard lock(watchdog_mutex_);
    watchdog_stops_ = true;
  }
  watchdog_wake_.notify_one();
  watchdog_.join();
}

bool writer_is_behind(std::chrono::steady_clock::time_point now,
                      std::optional<std::chrono::steady_clock::time_point> oldest_queued,
                      std::optional<std::chrono::steady_clock::time_point> unflushed_since,
                      std::chrono::milliseconds flush_interval) {
  if (oldest_queued && now - *oldest_queued >= flush_interval) return true;
  return unflushed_since && now - *unflushed_since >= 2 * flush_interval;
}

void WriterThread::keep_up(std::chrono::steady_clock::time_point now) {
  pass_began_.store(0, std::memory_order_relaxed);
  if (priority_ != Priority::idle || !idle_.load()) return;
  std::optional<std::chrono::steady_clock::time_point> unflushed;
  if (int64_t since = unflushed_since_.load(); since != 0) {
    unflushed = std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(since));
  }
  if (writer_is_behind(now, queue_.oldest_queued_at(), unflushed, flush_interval_)) raise();
}

void WriterThread::raise() {
  if (idle_.exchange(false)) (void)set_normal_priority(tid_.load());
}

// The flag first, then the policy, then the flag again: a raise() that
// comes before the policy change may have set normal priority before this
// sets idle, so finding the flag cleared, this undoes its own change. A
// raise() is thus never lost, whenever it comes (losing one left the writer
// idle with 128 Ki records waiting while the producer went on). No lock: a
// lock the writer took would be held by a SCHED_IDLE thread, and a producer
// waiting on it would wait for as long as the workload starves the writer.
void WriterThread::lower() {
  if (priority_ != Priority::idle || idle_.load() || !lowering_allowed_.load()) return;
  idle_.store(true);
  if (!set_idle_priority(tid_.load())) {
    idle_.store(false);
    return;
  }
  if (!idle_.load()) (void)set_normal_priority(tid_.load());
}

void WriterThread::fail(Error error) {
  if (!error_) error_ = std::move(error);
  failed_.store(true, std::memory_order_relaxed);
}

void WriterThread::run() {
  tid_.store(static_cast<pid_t>(gettid()));
  try {
    write_batches();
  } catch (const std::exception& e) {
    fail(Error(internal_error("writer", &e)));
  } catch (...) {
    fail(Error(internal_error("writer", nullptr)));
  }
  if (!error_) return;
  // Failed: what the drain loop still queues is discarded, until it closes
  // the queue (the producer must never wait for a dead consumer).
  EventBatch batch;
  while (queue_.pop_for(batch, flush_interval_) != BatchQueue::PopResult::closed) {
    queue_.recycle(std::move(batch));
    batch = EventBatch();
  }
}

void WriterThread::write_batches() {
  lower();
  EventBatch batch;
  auto last_tick = std::chrono::steady_clock::now();
  for (;;) {
    BatchQueue::PopResult got = queue_.pop_for(batch, flush_interval_);
    if (got == BatchQueue::PopResult::closed) break;
    const bool timeout = got == BatchQueue::PopResult::timeout;
    if (error_) {  // run() discards the rest
      if (!timeout) queue_.recycle(std::move(batch));
      return;
    }
    if (!timeout && hooks_.before_batch) hooks_.before_batch();
    auto now = std::chrono::steady_clock::now();
    if (timeout || now - last_tick >= flush_interval_) {
      // The pending chunk goes out, and what the output does by time.
      if (Status ticked = sink_->tick(); !ticked) {
        fail(ticked.error());
        continue;
      }
      if (!sink_->pending()) unflushed_since_.store(0);
      full_.store(sink_->full(), std::memory_order_relaxed);
      last_tick = now;
      if (timeout) {
        lower();  // after the flush: keep_up() may have raised it for that
        continue;
      }
    }
    if (unflushed_since_.load() == 0) unflushed_since_.store(now.time_since_epoch().count());
    if (Status status = sink_->write(batch); !status) fail(status.error());
    full_.store(sink_->full(), std::memory_order_relaxed);
    queue_.recycle(std::move(batch));
    batch = EventBatch();
    if (queue_.size() == 0) lower();
  }
}

Status WriterThread::finish(const format::TraceSummary& summary,
                            const std::vector<format::ObjectTable>& objects) {
  raise();
  queue_.close();
  if (thread_.joinable()) thread_.join();
  stop_watchdog();
  if (error_) return *error_;
  Status finished = sink_->finish(summary, objects);
  trace_finished_ = sink_->finished();
  if (!finished) return finished;
  if (watchdog_error_) return *watchdog_error_;
  return Status::success();
}

}  // namespace usdt::record
