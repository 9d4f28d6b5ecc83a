#include "record/session/drainer.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <optional>

namespace usdt::record {
namespace {

// Big enough to make queue hand-offs rare, small enough to keep the writer busy.
constexpr size_t kBatchRecords = 8192;
// How long a partly filled batch waits for more records: 50 ms.
constexpr uint64_t kBatchMaxWaitNs = 50 * 1000 * 1000;
// How often a recording without records tells the writer how far it is.
constexpr uint64_t kProgressEveryNs = 100 * 1000 * 1000;
// Packed words an event takes in a batch with two arguments (batch_queue.h).
constexpr size_t kBatchWordsPerRecord = EventBatch::kHeaderWords + 2;
// Records read before the space they took is handed back to the kernel:
// with -g dwarf a sample is 8 KiB or more and a slow pass must not keep
// the whole buffer from the kernel.
constexpr size_t kReleaseEvery = 64;

// The records a StackCollector applies up to each sample's time.
bool changes_mappings(const format::ProcessEvent& p) {
  return p.kind != format::ProcessEventKind::comm;  // mmap, exec, fork, exit
}

}  // namespace

Drainer::Drainer(SampleDecoder& decoder, BatchQueue& queue, size_t site_count)
    : decoder_(decoder),
      queue_(queue),
      events_per_site_(site_count, 0),
      lost_per_site_(site_count, 0),
      own_pid_namespace_(pid_namespace_of("self")) {
  batch_.packed.reserve(kBatchRecords * kBatchWordsPerRecord);
  namespace_lookup_ = [own = own_pid_namespace_](uint32_t pid, uint32_t tid) {
    return thread_namespace(static_cast<pid_t>(pid), static_cast<pid_t>(tid), own);
  };
}

void Drainer::prepare_batches() {
  queue_.prepare_spares(kBatchRecords * kBatchWordsPerRecord);
  batch_.packed.prefault();
}

void Drainer::flush() {
  batch_pass_ns_ = 0;
  if (batch_.empty() && batch_.complete_before_ns <= progress_queued_) return;
  progress_queued_ = std::max(progress_queued_, batch_.complete_before_ns);
  batch_.drained_through_ns = drained_through_ns_;
  queue_.push(std::move(batch_));
  batch_ = queue_.take_empty();
  batch_.packed.reserve(kBatchRecords * kBatchWordsPerRecord);
}

void Drainer::request(OutputRequest request) {
  flush();
  batch_.requests.push_back(std::move(request));
  flush();
}

void Drainer::send_progress(uint64_t now_ns, uint64_t interval_ns) {
  if (now_ns - progress_sent_ns_ < interval_ns) return;
  progress_sent_ns_ = now_ns;
  if (batch_.empty()) batch_.progress = true;
  flush();
}

void Drainer::add(const format::ProcessEvent& event) {
  if (!event.comm.empty()) named_threads_.insert(event.tid);
  batch_.processes.push_back(event);
}

void Drainer::wait(const format::Event& e) {
  // The buffer's later samples wait too: each CPU's events reach the trace
  // in time order (FORMAT.md, writer rules).
  holding_ = true;
  Waiting& w = waiting_.emplace_back();
  w.event = e;
  w.stack.assign(e.stack, e.stack + e.stack_depth);
}

void Drainer::accept(const format::Event& e) {
  if (e.stack_depth != 0) {
    ++stacks_written_;
    if (e.stack_truncated) ++stacks_truncated_;
  }
  batch_.add(e);
  count_accepted(e.pid, e.tid, e.site_id, e.time_ns);
}

void Drainer::count_accepted(uint32_t pid, uint32_t tid, uint32_t site_id, uint64_t time) {
  // Consecutive events mostly come from one thread: skip the set then.
  uint64_t thread = uint64_t{pid} << 32 | tid;
  if (thread != last_thread_) {
    if (seen_threads_.insert(thread).second) on_new_thread(pid, tid, time);
    last_thread_ = thread;
  }
  ++events_;
  if (site_id < events_per_site_.size()) ++events_per_site_[site_id];
  if (batch_.event_count >= kBatchRecords) flush();
}

void Drainer::settle_waiting() {
  for (Waiting& w : waiting_) {
    format::Event& e = w.event;
    e.stack = w.stack.data();
    if (!filter_ || e.site_id < first_filtered_site_ || traced(e.pid)) {
      accept(e);
    } else {
      ++foreign_;
    }
  }
  waiting_.clear();
}

void Drainer::drain_until_empty(std::vector<RingBuffer>& buffers) {
  while (drain(buffers) != 0) {
  }
}

void Drainer::drain_to_end(std::vector<RingBuffer>& buffers) {
  drain_until_empty(buffers);
  settle_waiting();
  // The events are off (the session disabled them first): nothing is left.
  drained_through_ns_ = UINT64_MAX;
  // Nothing more comes: the exits of the last passes are final.
  forget_exited();
  forget_exited();
  flush();
}

void Drainer::snapshot(std::vector<RingBuffer>& buffers, size_t& records) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const uint64_t cutoff =
      static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
  pass_ns_ = cutoff;
  for (size_t i = 0; i < buffers.size(); ++i) {
    RingBuffer& buffer = buffers[i];
    buffer.begin_read();
    const bool samples = i < side_band_from_;
    if (samples && stacks_ == nullptr) continue;
    while (const perf_event_header* record = buffer.next()) {
      std::optional<uint64_t> time = decoder_.record_time(record);
      if (time && *time > cutoff) {
        buffer.cut_before(record);
        break;
      }
    }
    buffer.rewind();
  }
  // The side band up to the cut, taken whole: its records are few.
  pass_processes_.clear();
  for (size_t i = side_band_from_; i < buffers.size(); ++i) {
    RingBuffer& buffer = buffers[i];
    while (const perf_event_header* record = buffer.next()) {
      ++records;
      switch (decoder_.decode(record)) {
        case SampleDecoder::Kind::process:
          pass_processes_.push_back(decoder_.process());
          break;
        case SampleDecoder::Kind::lost:  // process records, not events
          lost_process_records_ += decoder_.lost().count;
          break;
        case SampleDecoder::Kind::event:  // none are written here
        case SampleDecoder::Kind::none:
          break;
      }
    }
    buffer.end_read();
  }
  std::stable_sort(pass_processes_.begin(), pass_processes_.end(),
                   [](const format::ProcessEvent& a, const format::ProcessEvent& b) {
                     return a.time_ns < b.time_ns;
                   });
}

void Drainer::apply_process_records() {
  std::vector<format::ProcessEvent> mappings;
  for (const format::ProcessEvent& p : pass_processes_) {
    const format::ProcessEvent* kept = apply_process(p);
    if (kept != nullptr && stacks_ != nullptr && changes_mappings(*kept)) mappings.push_back(*kept);
  }
  if (stacks_ != nullptr) stacks_->begin_pass(std::move(mappings));
}

void Drainer::add_event(const format::Event& decoded, const StackInputs& stack) {
  const format::Event* e = &decoded;
  if (stacks_ != nullptr) {
    stacked_ = decoded;
    stacks_->collect(stack, stacked_);
    for (format::ProcessEvent& p : stacks_->take_seeded()) batch_.processes.push_back(std::move(p));
    e = &stacked_;
  }
  if (!holding_ && (!filter_ || e->site_id < first_filtered_site_ || traced_cached(e->pid))) {
    accept(*e);
  } else {
    wait(*e);
  }
}

// The usual sample of a run without call stacks is packed straight into the
// batch (SampleDecoder::pack_usual); the rest, and samples the pid filter
// has to look at, go through decode() and add_event().
bool Drainer::take_usual(const perf_event_header* record) {
  uint64_t* w = batch_.packed.room(kPackedMaxWords);
  const size_t words = decoder_.pack_usual(record, w);
  if (words == 0) return false;
  return commit_packed(words);
}

bool Drainer::commit_packed(size_t words) {
  const uint64_t* w = batch_.packed.room(kPackedMaxWords);
  const uint32_t site = packed_site(w);
  const uint32_t pid = packed_pid(w);
  if (filter_ && site >= first_filtered_site_ && !traced_cached(pid)) return false;
  batch_.packed.commit(words);
  ++batch_.event_count;
  count_accepted(pid, packed_tid(w), site, packed_time(w));
  return true;
}

void Drainer::drain_buffer(RingBuffer& buffer, size_t& records) {
  size_t unreleased = 0;
  const bool packs = stacks_ == nullptr;
  holding_ = false;
  while (const perf_event_header* record = buffer.next()) {
    ++records;
    if (!packs || holding_ || !take_usual(record)) take(record);
    // After the record is read: the kernel may overwrite what is released.
    if (++unreleased == kReleaseEvery) {
      buffer.end_read();
      unreleased = 0;
    }
  }
  // Hand the space back before the next buffer so the kernel can refill it.
  buffer.end_read();
}

void Drainer::take(const perf_event_header* record) {
  switch (decoder_.decode(record)) {
    case SampleDecoder::Kind::event:
      add_event(decoder_.event(), decoder_.stack_inputs());
      break;
    case SampleDecoder::Kind::lost:
      add_lost(decoder_.lost());
      break;
    case SampleDecoder::Kind::process:  // the recorder's own renames (anchors)
      apply_process(decoder_.process());
      break;
    case SampleDecoder::Kind::none:
      break;
  }
}

void Drainer::add_lost(const format::LostEvent& l) {
  batch_.lost.push_back(l);
  lost_ += l.count;
  if (l.site_id < lost_per_site_.size()) lost_per_site_[l.site_id] += l.count;
}

size_t Drainer::drain(std::vector<RingBuffer>& buffers) {
  size_t records = 0;
  snapshot(buffers, records);  // takes the side band; leaves the rest at the snapshot's start
  apply_process_records();
  // The samples that waited in the last pass: their processes' forks, older
  // than the samples, are known now. Before this pass's samples, so that
  // each CPU's events stay in time order.
  settle_waiting();
  for (size_t i = 0; i < buffers.size() && i < side_band_from_; ++i)
    drain_buffer(buffers[i], records);
  if (source_ != nullptr) records += source_->drain_into(*this);
  if (stacks_ != nullptr) stacks_->end_pass();
  // Every sample stamped before the previous pass's reading is accepted now:
  // those of this pass that wait for their process are settled in the next.
  drained_through_ns_ = previous_pass_ns_;
  previous_pass_ns_ = pass_ns_;
  forget_exited();
  note_progress();
  // A batch goes when full (accept()) or, partly filled, once it has waited
  // kBatchMaxWaitNs: a pass every few hundred events would otherwise cut
  // small batches, more than the spares prepared for an idle writer.
  if (!batch_.empty()) {
    if (batch_pass_ns_ == 0) {
      batch_pass_ns_ = pass_ns_;
    } else if (pass_ns_ - batch_pass_ns_ >= kBatchMaxWaitNs) {
      flush();
    }
  }
  return records;
}

void Drainer::note_progress() {
  uint64_t mark = pass_ns_ > kProgressMargin ? pass_ns_ - kProgressMargin : 0;
  // The samples held back for their process are taken in the next pass.
  for (const Waiting& w : waiting_) mark = std::min(mark, w.event.time_ns);
  if (mark <= complete_before_) return;
  complete_before_ = mark;
  batch_.complete_before_ns = mark;
  // A quiet recording still tells a reader that follows it how far it is
  // (the writer writes it once a flush interval): a batch of nothing but
  // this, at most every kProgressEvery.
  if (batch_.empty() && mark - progress_queued_ >= kProgressEveryNs) flush();
}

std::vector<format::ProcessEvent> Drainer::take_new_mappings() {
  std::vector<format::ProcessEvent> out;
  out.swap(new_mappings_);
  return out;
}

void Drainer::add_sites(size_t count) {
  events_per_site_.resize(events_per_site_.size() + count, 0);
  lost_per_site_.resize(lost_per_site_.size() + count, 0);
}

}  // namespace usdt::record
