// Empties the per-CPU ring buffers: decodes every record and queues the
// results in batches for the writer thread, keeping the counts the end
// report and the trace summary need. Runs on the main thread only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "record/batch_queue.h"
#include "record/ring_buffer.h"
#include "record/sample_decoder.h"

namespace usdt::record {

class Drainer {
 public:
  Drainer(SampleDecoder& decoder, BatchQueue& queue, size_t site_count);

  // Reads every buffer up to its current head; returns how many records
  // were read. Batches are queued as they fill and at the end.
  size_t drain(std::vector<RingBuffer>& buffers);

  // Queues a record that did not come from a buffer (comm at start).
  void add(const format::ProcessEvent& event);
  void flush();

  uint64_t events() const { return events_; }
  uint64_t lost() const { return lost_; }
  const std::vector<uint64_t>& events_per_site() const { return events_per_site_; }
  const std::vector<uint64_t>& lost_per_site() const { return lost_per_site_; }
  // Processes seen starting (FORK of a new process) since the last call.
  std::vector<pid_t> take_new_processes();

 private:
  SampleDecoder& decoder_;
  BatchQueue& queue_;
  EventBatch batch_;
  uint64_t events_ = 0;
  uint64_t lost_ = 0;
  std::vector<uint64_t> events_per_site_;
  std::vector<uint64_t> lost_per_site_;
  std::vector<pid_t> new_processes_;
};

}  // namespace usdt::record
