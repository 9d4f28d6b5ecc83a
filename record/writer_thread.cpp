#include "record/writer_thread.h"

#include <chrono>

namespace usdt::record {

WriterThread::WriterThread(format::TraceWriter writer, BatchQueue& queue)
    : writer_(std::move(writer)), queue_(queue), thread_([this] { run(); }) {}

WriterThread::~WriterThread() {
  if (thread_.joinable()) {
    queue_.close();
    thread_.join();
  }
}

// How long decoded events may sit in the writer's pending chunk. A recorder
// killed by SIGKILL (or a machine that crashes) loses at most this much; the
// writer itself only checks chunk age when appends arrive, so a quiet
// recording is flushed from here.
constexpr std::chrono::milliseconds kFlushInterval{1000};

void WriterThread::run() {
  EventBatch batch;
  bool pending = false;  // appended since the last flush
  auto last_flush = std::chrono::steady_clock::now();
  for (;;) {
    BatchQueue::PopResult got = queue_.pop_for(batch, kFlushInterval);
    if (got == BatchQueue::PopResult::closed) break;
    if (failed_.load(std::memory_order_relaxed)) continue;
    auto now = std::chrono::steady_clock::now();
    if (got == BatchQueue::PopResult::timeout || now - last_flush >= kFlushInterval) {
      if (pending) {
        if (Status flushed = writer_.flush(); !flushed) {
          error_ = flushed.error();
          failed_.store(true, std::memory_order_relaxed);
          continue;
        }
        pending = false;
      }
      last_flush = now;
      if (got == BatchQueue::PopResult::timeout) continue;
    }
    pending = true;
    Status status;
    if (!batch.added_sites.empty()) status = writer_.add_sites(batch.added_sites, batch.added_since_ns);
    for (const format::ProcessEvent& p : batch.processes) {
      if (!status) break;
      if (status = writer_.append(p); !status) break;
    }
    if (status) status = writer_.append_events(batch.events);
    if (status) {
      for (const format::LostEvent& l : batch.lost) {
        if (status = writer_.append(l); !status) break;
      }
    }
    if (!status) {
      error_ = status.error();
      failed_.store(true, std::memory_order_relaxed);
    }
    queue_.recycle(std::move(batch));
    batch = EventBatch();
  }
}

Status WriterThread::finish(const format::TraceSummary& summary,
                            const std::vector<format::ObjectTable>& objects) {
  queue_.close();
  if (thread_.joinable()) thread_.join();
  if (error_) return *error_;
  for (const format::ObjectTable& object : objects) {
    if (Status s = writer_.add_object(object); !s) return s;
  }
  return writer_.finish(summary);
}

}  // namespace usdt::record
