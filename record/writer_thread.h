// The thread that encodes, compresses and writes the trace: it owns the
// TraceWriter while recording and appends every batch the drain loop queues.
// A write failure (disk full, I/O error) is kept, raised as failed() for the
// drain loop to stop on, and later batches are discarded so the producer is
// never blocked by a dead consumer.
#pragma once

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "common/result.h"
#include "formats/trace_writer.h"
#include "record/batch_queue.h"

namespace usdt::record {

class WriterThread {
 public:
  WriterThread(format::TraceWriter writer, BatchQueue& queue);
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;
  // Joins (closing the queue) if finish() was not called.
  ~WriterThread();

  bool failed() const { return failed_.load(std::memory_order_relaxed); }

  // Closes the queue, waits for the thread to write what is left, then writes
  // the symbols of the files in stacks (object blocks) and the summary.
  // Returns the first error of the whole run.
  Status finish(const format::TraceSummary& summary,
                const std::vector<format::ObjectTable>& objects = {});

  // Only after finish(): the writer belongs to the thread until then.
  uint64_t bytes_written() const { return thread_.joinable() ? 0 : writer_.bytes_written(); }

 private:
  void run();
  format::TraceWriter writer_;
  BatchQueue& queue_;
  std::atomic<bool> failed_{false};
  std::optional<Error> error_;
  std::thread thread_;
};

}  // namespace usdt::record
