#include "record/writer_thread.h"

namespace usdt::record {

WriterThread::WriterThread(format::TraceWriter writer, BatchQueue& queue)
    : writer_(std::move(writer)), queue_(queue), thread_([this] { run(); }) {}

WriterThread::~WriterThread() {
  if (thread_.joinable()) {
    queue_.close();
    thread_.join();
  }
}

void WriterThread::run() {
  EventBatch batch;
  while (queue_.pop(batch)) {
    if (failed_.load(std::memory_order_relaxed)) continue;
    Status status;
    for (const format::ProcessEvent& p : batch.processes) {
      if (status = writer_.append(p); !status) break;
    }
    if (status) {
      for (const format::Event& e : batch.events) {
        if (status = writer_.append(e); !status) break;
      }
    }
    if (status) {
      for (const format::LostEvent& l : batch.lost) {
        if (status = writer_.append(l); !status) break;
      }
    }
    if (!status) {
      error_ = status.error();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
}

Status WriterThread::finish(const format::TraceSummary& summary) {
  queue_.close();
  if (thread_.joinable()) thread_.join();
  if (error_) return *error_;
  return writer_.finish(summary);
}

}  // namespace usdt::record
