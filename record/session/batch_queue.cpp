#include "record/session/batch_queue.h"

#include <algorithm>
#include <cstring>

namespace usdt::record {

void BatchQueue::set_consumer_needed(std::function<void()> need, size_t records) {
  need_ = std::move(need);
  need_records_ = records;
}

std::unique_lock<std::mutex> BatchQueue::lock_for_producer() {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    if (need_) need_();
    lock.lock();
  }
  return lock;
}

void BatchQueue::push(EventBatch batch) {
  std::unique_lock lock = lock_for_producer();
  if (need_ && batches_.size() + 1 >= max_batches_) {
    lock.unlock();
    need_();  // before waiting for room: the consumer makes it
    lock.lock();
  }
  not_full_.wait(lock, [&] { return closed_ || batches_.size() < max_batches_; });
  if (closed_) return;
  batch.queued_at = std::chrono::steady_clock::now();
  queued_records_ += batch.size();
  batches_.push_back(std::move(batch));
  not_empty_.notify_one();
  const bool needed = need_ && queued_records_ >= need_records_;
  lock.unlock();
  if (needed) need_();
}

size_t BatchQueue::size() {
  std::lock_guard lock(mutex_);
  return batches_.size();
}

std::optional<std::chrono::steady_clock::time_point> BatchQueue::oldest_queued_at() {
  std::lock_guard lock(mutex_);
  if (batches_.empty()) return std::nullopt;
  return batches_.front().queued_at;
}

BatchQueue::PopResult BatchQueue::pop_for(EventBatch& batch, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!not_empty_.wait_for(lock, timeout, [&] { return closed_ || !batches_.empty(); })) {
    return PopResult::timeout;
  }
  if (batches_.empty()) return PopResult::closed;
  batch = std::move(batches_.front());
  batches_.pop_front();
  queued_records_ -= batch.size();
  not_full_.notify_one();
  return PopResult::batch;
}

// Enough to cover the backlog an idle writer leaves (writer_thread.h) with
// batches that keep their memory: the drain loop then fills pages it has
// touched before instead of faulting in fresh ones. About 6 MB at most.
constexpr size_t kMaxSpareBatches = 16;

void PackedWords::grow(size_t at_least) {
  size_t capacity = std::max<size_t>(capacity_ * 2, 1024);
  while (capacity < at_least) capacity *= 2;
  std::unique_ptr<uint64_t[]> bigger(new uint64_t[capacity]);  // not zeroed
  if (size_ != 0) std::memcpy(bigger.get(), words_.get(), size_ * sizeof(uint64_t));
  words_ = std::move(bigger);
  capacity_ = capacity;
}

void PackedWords::prefault() {
  constexpr size_t kWordsPerPage = 4096 / sizeof(uint64_t);
  for (size_t i = 0; i < capacity_; i += kWordsPerPage) words_[i] = 0;
}

void EventBatch::add(const format::Event& e) {
  const size_t n = std::min<size_t>(e.arg_count, format::kMaxArgs);
  const bool stack = e.stack_depth != 0;
  uint64_t* w = packed.extend(kHeaderWords + (stack ? 1 : 0) + n);
  pack_header(w, e.time_ns, e.pid, e.tid, e.cpu, e.site_id,
              packed_shape(n, e.missing_mask, e.string_mask, e.stack_depth, e.stack_truncated));
  w += kHeaderWords;
  if (stack) *w++ = reinterpret_cast<uint64_t>(own_stack(e.stack, e.stack_depth));
  if (e.string_mask == 0) {
    std::memcpy(w, e.args, n * sizeof(uint64_t));
  } else {
    for (size_t i = 0; i < n; ++i) {
      const bool string = e.is_string(static_cast<int>(i)) && e.has_arg(static_cast<int>(i));
      w[i] = string ? own_string(e.string_arg(static_cast<int>(i))) : e.args[i];
    }
  }
  ++event_count;
}

bool EventBatch::Reader::next(format::Event& e) {
  if (at_ == end_) return false;
  // Only what the last event set: e is the caller's, and all of it is
  // written here on the first call.
  if (first_) {
    e = format::Event();
    first_ = false;
  }
  const uint8_t last_count = e.arg_count;
  e.time_ns = at_[0];
  e.pid = static_cast<uint32_t>(at_[1]);
  e.tid = static_cast<uint32_t>(at_[1] >> 32);
  e.cpu = static_cast<uint32_t>(at_[2]);
  e.site_id = static_cast<uint32_t>(at_[2] >> 32);
  const uint64_t shape = at_[3];
  e.arg_count = static_cast<uint8_t>(shape);
  e.missing_mask = static_cast<uint16_t>(shape >> 8);
  e.string_mask = static_cast<uint16_t>(shape >> 24);
  e.stack_depth = static_cast<uint16_t>(shape >> 40);
  e.stack_truncated = (shape >> 56) & 1u;
  at_ += kHeaderWords;
  if (e.stack_depth != 0) e.stack = reinterpret_cast<const uint64_t*>(*at_++);
  for (size_t i = 0; i < e.arg_count; ++i) e.args[i] = at_[i];
  for (size_t i = e.arg_count; i < last_count; ++i) e.args[i] = 0;
  if (e.stack_depth == 0) e.stack = nullptr;
  at_ += e.arg_count;
  return true;
}

uint64_t EventBatch::own_string(const format::StringArg& from) {
  const std::string& bytes = string_bytes.emplace_back(from.bytes);
  format::StringArg& to = string_args.emplace_back();
  to.bytes = bytes;
  to.truncated = from.truncated;
  return reinterpret_cast<uint64_t>(&to);
}

const uint64_t* EventBatch::own_stack(const uint64_t* frames, size_t n) {
  // 64 Ki addresses a block: a batch of 8192 events with 8 frames each.
  constexpr size_t kBlock = 64 * 1024;
  while (stack_block < stack_blocks.size() &&
         stack_blocks[stack_block].capacity() - stack_blocks[stack_block].size() < n) {
    ++stack_block;
  }
  if (stack_block == stack_blocks.size()) {
    stack_blocks.emplace_back().reserve(std::max(kBlock, n));
  }
  std::vector<uint64_t>& block = stack_blocks[stack_block];
  const uint64_t* copy = block.data() + block.size();
  block.insert(block.end(), frames, frames + n);
  return copy;
}

void BatchQueue::recycle(EventBatch batch) {
  for (std::vector<uint64_t>& block : batch.stack_blocks) block.clear();
  batch.stack_block = 0;
  batch.string_args.clear();
  batch.string_bytes.clear();
  batch.packed.clear();
  batch.event_count = 0;
  batch.processes.clear();
  batch.lost.clear();
  batch.added_sites.clear();
  batch.requests.clear();
  batch.drained_through_ns = 0;
  batch.progress = false;
  batch.complete_before_ns = 0;
  std::lock_guard lock(mutex_);
  if (spare_.size() < kMaxSpareBatches) spare_.push_back(std::move(batch));
}

EventBatch BatchQueue::take_empty() {
  std::unique_lock lock = lock_for_producer();
  if (spare_.empty()) return EventBatch();
  EventBatch batch = std::move(spare_.back());
  spare_.pop_back();
  return batch;
}

void BatchQueue::prepare_spares(size_t words) {
  std::lock_guard lock(mutex_);
  while (spare_.size() < kMaxSpareBatches) {
    EventBatch batch;
    batch.packed.reserve(words);
    batch.packed.prefault();
    spare_.push_back(std::move(batch));
  }
}

void BatchQueue::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  not_empty_.notify_all();
  not_full_.notify_all();
}

}  // namespace usdt::record
