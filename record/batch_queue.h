// Hands decoded records from the drain loop (producer) to the writer thread
// (consumer) in batches, so the drain loop never waits on compression or the
// disk. Bounded: when the writer falls far behind, push() waits rather than
// grow memory without limit (the kernel then counts lost events, which the
// trace reports, instead of the recorder being killed for memory).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::record {

struct EventBatch {
  std::vector<format::Event> events;
  std::vector<format::ProcessEvent> processes;
  std::vector<format::LostEvent> lost;
  // What the string arguments of events point to (format::Event::string_arg):
  // deques, so that adding one never moves the others.
  std::deque<format::StringArg> string_args;
  std::deque<std::string> string_bytes;
  // What the stacks of events point to (format::Event::stack): blocks that
  // never grow past their reserved size, so that addresses stay put.
  std::vector<std::vector<uint64_t>> stack_blocks;
  size_t stack_block = 0;  // the block being filled
  // Probe sites attached during the recording (a library mapped after the
  // start), written to the trace before this batch's records, which may be
  // the first of their events; active_since_ns is when they became active.
  std::vector<format::ProbeSite> added_sites;
  uint64_t added_since_ns = 0;

  // Appends an event, copying its strings and stack into the batch.
  void add(const format::Event& event) {
    events.push_back(event);
    if (event.string_mask != 0) own_strings(events.back());
    if (event.stack_depth != 0) own_stack(events.back());
  }
  bool empty() const {
    return events.empty() && processes.empty() && lost.empty() && added_sites.empty();
  }
  size_t size() const { return events.size() + processes.size() + lost.size(); }

 private:
  void own_strings(format::Event& event);
  void own_stack(format::Event& event);
};

class BatchQueue {
 public:
  explicit BatchQueue(size_t max_batches) : max_batches_(max_batches) {}

  // Waits while the queue is full; drops the batch if the queue was closed.
  void push(EventBatch batch);
  enum class PopResult { batch, timeout, closed };
  // Waits for a batch, giving up after timeout so the consumer can do
  // periodic work (the writer thread flushes its chunk then); closed once
  // the queue is closed and empty.
  PopResult pop_for(EventBatch& batch, std::chrono::milliseconds timeout);
  // No more pushes; pop() returns what is left, then false.
  void close();

  // Batches go round: the consumer hands back a batch it has written and the
  // producer takes it for filling, so their vectors keep their capacity
  // instead of every batch allocating (and page-faulting in) fresh memory.
  void recycle(EventBatch batch);
  // An empty batch, with the capacity of a recycled one when there is one.
  EventBatch take_empty();

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<EventBatch> batches_;
  std::vector<EventBatch> spare_;
  size_t max_batches_;
  bool closed_ = false;
};

}  // namespace usdt::record
