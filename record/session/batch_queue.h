// Hands decoded records from the drain loop (producer) to the writer thread
// (consumer) in batches, so the drain loop never waits on compression or the
// disk. Bounded: when the writer falls far behind, push() waits rather than
// grow memory without limit (the kernel then counts lost events, which the
// trace reports, instead of the recorder being killed for memory).
//
// The consumer may run at idle priority (writer_thread.h): then the producer
// calls the consumer-needed hook when the consumer must run now, since an
// idle thread cannot notice that itself while a busy workload starves it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "record/kernel/packed_event.h"

namespace usdt::record {

// Words appended without being zeroed first (std::vector::resize zeroes
// them, a memset per event in the drain loop).
class PackedWords {
 public:
  // n words at the end, to be written by the caller.
  uint64_t* extend(size_t n) {
    uint64_t* at = room(n);
    size_ += n;
    return at;
  }
  // Room for n words at the end, of which commit() keeps the first used.
  uint64_t* room(size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    return words_.get() + size_;
  }
  void commit(size_t used) { size_ += used; }
  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  // Touches every page of the reserved room, so filling it faults none.
  void prefault();
  void clear() { size_ = 0; }
  const uint64_t* data() const { return words_.get(); }
  size_t size() const { return size_; }

 private:
  void grow(size_t at_least);
  std::unique_ptr<uint64_t[]> words_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Asked of the output between two batches (record/output/trace_sink.h): a
// flight recorder's snapshot, or the next file of a series, now.
struct OutputRequest {
  enum class Kind : uint8_t { snapshot, switch_file } kind = Kind::snapshot;
  std::string cause;  // "signal", "control"
  uint64_t at_ns = 0;  // CLOCK_MONOTONIC when it was asked: the drain loop read all before
};

struct EventBatch {
  // The events, packed (packed_event.h): a third of a format::Event with two
  // arguments. The batches an idle writer leaves queued are memory the drain
  // loop fills; the less, the fewer pages it touches.
  PackedWords packed;
  size_t event_count = 0;
  static constexpr size_t kHeaderWords = kPackedHeaderWords;
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
  // Requests after this batch's records (a batch may hold nothing else).
  std::vector<OutputRequest> requests;
  // Every record with an earlier time (CLOCK_MONOTONIC) has been queued,
  // in this batch or before (the drain loop's passes; 0: not known): how
  // far a trigger's window is complete.
  uint64_t drained_through_ns = 0;
  // Sent only to carry drained_through_ns forward in a quiet recording.
  bool progress = false;
  // For a reader following the file: every record with a time below this (lost records: time_end_ns) is in
  // this batch or an earlier one (format::TraceWriter::note_complete_before);
  // 0: the batch says nothing. A batch may carry only this.
  uint64_t complete_before_ns = 0;
  std::chrono::steady_clock::time_point queued_at{};  // set by push()

  // Appends an event, copying its strings and stack into the batch.
  void add(const format::Event& event);
  bool empty() const {
    return event_count == 0 && processes.empty() && lost.empty() && added_sites.empty() &&
           requests.empty() && !progress;
  }
  size_t size() const { return event_count + processes.size() + lost.size(); }

  // The events in the order added.
  class Reader {
   public:
    explicit Reader(const EventBatch& batch)
        : at_(batch.packed.data()), end_(batch.packed.data() + batch.packed.size()) {}
    // The next event into e (its strings and stack still the batch's);
    // false after the last. Pass the same e each time: only the fields
    // the previous event set are cleared.
    bool next(format::Event& e);

   private:
    const uint64_t* at_;
    const uint64_t* end_;
    bool first_ = true;
  };

 private:
  // The address of a copy owned by the batch.
  uint64_t own_string(const format::StringArg& arg);
  const uint64_t* own_stack(const uint64_t* frames, size_t depth);
};

class BatchQueue {
 public:
  explicit BatchQueue(size_t max_batches) : max_batches_(max_batches) {}

  // The producer calls need() when the consumer has to run now: the queue
  // holds `records` records or more (batches are cut at every drain pass,
  // so their number says little), it is full, or the consumer holds the lock
  // the producer needs (a preempted idle consumer would otherwise stall the
  // producer for as long as it starves). How long a batch has waited is the
  // consumer's own check (oldest_queued_at, WriterThread::keep_up), made
  // after every pass whether it pushed or not. Set before the threads start.
  void set_consumer_needed(std::function<void()> need, size_t records);

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
  // Fills the spares with batches of `words` packed words, their memory
  // touched (PackedWords::prefault).
  void prepare_spares(size_t words);
  // Batches waiting for the consumer.
  size_t size();
  // When the oldest of them was queued; nullopt when none waits.
  std::optional<std::chrono::steady_clock::time_point> oldest_queued_at();

 private:
  // The producer's lock: calls need() first when the consumer holds it.
  std::unique_lock<std::mutex> lock_for_producer();

  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<EventBatch> batches_;
  std::vector<EventBatch> spare_;
  size_t max_batches_;
  bool closed_ = false;
  std::function<void()> need_;
  size_t queued_records_ = 0;
  size_t need_records_ = 0;
};

}  // namespace usdt::record
