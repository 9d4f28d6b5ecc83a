#include "record/batch_queue.h"

#include <algorithm>

namespace usdt::record {

void BatchQueue::push(EventBatch batch) {
  std::unique_lock lock(mutex_);
  not_full_.wait(lock, [&] { return closed_ || batches_.size() < max_batches_; });
  if (closed_) return;
  batches_.push_back(std::move(batch));
  not_empty_.notify_one();
}

BatchQueue::PopResult BatchQueue::pop_for(EventBatch& batch, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!not_empty_.wait_for(lock, timeout, [&] { return closed_ || !batches_.empty(); })) {
    return PopResult::timeout;
  }
  if (batches_.empty()) return PopResult::closed;
  batch = std::move(batches_.front());
  batches_.pop_front();
  not_full_.notify_one();
  return PopResult::batch;
}

// Enough to cover the producer filling one batch while the consumer writes
// another, with some slack; more would only hold memory.
constexpr size_t kMaxSpareBatches = 4;

void EventBatch::own_strings(format::Event& event) {
  for (int i = 0; i < event.arg_count; ++i) {
    if (!event.is_string(i) || !event.has_arg(i)) continue;
    const format::StringArg& from = event.string_arg(i);
    const std::string& bytes = string_bytes.emplace_back(from.bytes);
    format::StringArg& to = string_args.emplace_back();
    to.bytes = bytes;
    to.truncated = from.truncated;
    event.args[i] = reinterpret_cast<uint64_t>(&to);
  }
}

void EventBatch::own_stack(format::Event& event) {
  // 64 Ki addresses a block: a batch of 8192 events with 8 frames each.
  constexpr size_t kBlock = 64 * 1024;
  const size_t n = event.stack_depth;
  while (stack_block < stack_blocks.size() &&
         stack_blocks[stack_block].capacity() - stack_blocks[stack_block].size() < n) {
    ++stack_block;
  }
  if (stack_block == stack_blocks.size()) {
    stack_blocks.emplace_back().reserve(std::max(kBlock, n));
  }
  std::vector<uint64_t>& block = stack_blocks[stack_block];
  const uint64_t* copy = block.data() + block.size();
  block.insert(block.end(), event.stack, event.stack + n);
  event.stack = copy;
}

void BatchQueue::recycle(EventBatch batch) {
  for (std::vector<uint64_t>& block : batch.stack_blocks) block.clear();
  batch.stack_block = 0;
  batch.string_args.clear();
  batch.string_bytes.clear();
  batch.events.clear();
  batch.processes.clear();
  batch.lost.clear();
  batch.added_sites.clear();
  std::lock_guard lock(mutex_);
  if (spare_.size() < kMaxSpareBatches) spare_.push_back(std::move(batch));
}

EventBatch BatchQueue::take_empty() {
  std::lock_guard lock(mutex_);
  if (spare_.empty()) return EventBatch();
  EventBatch batch = std::move(spare_.back());
  spare_.pop_back();
  return batch;
}

void BatchQueue::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  not_empty_.notify_all();
  not_full_.notify_all();
}

}  // namespace usdt::record
