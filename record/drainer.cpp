#include "record/drainer.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <optional>

namespace usdt::record {
namespace {

// Big enough to make queue hand-offs rare, small enough to keep the writer busy.
constexpr size_t kBatchRecords = 8192;
// Records read before the space they took is handed back to the kernel:
// with -g dwarf a sample is 8 KiB or more and a slow pass must not keep
// the whole buffer from the kernel.
constexpr size_t kReleaseEvery = 64;

bool changes_mappings(const perf_event_header* record) {
  switch (record->type) {
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      return true;
    case PERF_RECORD_COMM:
      return (record->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
    default:
      return false;
  }
}

}  // namespace

Drainer::Drainer(SampleDecoder& decoder, BatchQueue& queue, size_t site_count)
    : decoder_(decoder),
      queue_(queue),
      events_per_site_(site_count, 0),
      lost_per_site_(site_count, 0) {
  batch_.events.reserve(kBatchRecords);
}

void Drainer::flush() {
  if (batch_.empty()) return;
  queue_.push(std::move(batch_));
  batch_ = queue_.take_empty();
  batch_.events.reserve(kBatchRecords);
}

void Drainer::add(const format::ProcessEvent& event) {
  if (!event.comm.empty()) named_threads_.insert(event.tid);
  batch_.processes.push_back(event);
}

std::vector<std::pair<uint32_t, uint32_t>> Drainer::unnamed_threads() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint64_t thread : seen_threads_) {
    uint32_t tid = static_cast<uint32_t>(thread);
    if (named_threads_.count(tid) == 0) out.emplace_back(static_cast<uint32_t>(thread >> 32), tid);
  }
  return out;
}

void Drainer::set_pid_filter(const std::vector<pid_t>& roots, uint32_t first_site) {
  filter_ = true;
  first_filtered_site_ = first_site;
  for (pid_t pid : roots) traced_.insert(static_cast<uint32_t>(pid));
}

void Drainer::wait(const format::Event& e) {
  Waiting& w = waiting_next_.emplace_back();
  w.event = e;
  w.stack.assign(e.stack, e.stack + e.stack_depth);
}

void Drainer::accept(const format::Event& e) {
  if (e.stack_depth != 0) {
    ++stacks_written_;
    if (e.stack_truncated) ++stacks_truncated_;
  }
  // Consecutive events mostly come from one thread: skip the set then.
  uint64_t thread = uint64_t{e.pid} << 32 | e.tid;
  if (thread != last_thread_) {
    seen_threads_.insert(thread);
    last_thread_ = thread;
  }
  batch_.add(e);
  ++events_;
  if (e.site_id < events_per_site_.size()) ++events_per_site_[e.site_id];
  if (batch_.events.size() >= kBatchRecords) flush();
}

void Drainer::settle_waiting(bool final) {
  for (Waiting& w : waiting_) {
    format::Event& e = w.event;
    e.stack = w.stack.data();
    if (traced(e.pid)) {
      accept(e);
    } else {
      ++foreign_;
    }
  }
  waiting_.clear();
  waiting_.swap(waiting_next_);
  if (final) settle_waiting(false);
}

void Drainer::drain_to_end(std::vector<RingBuffer>& buffers) {
  while (drain(buffers) != 0) {
  }
  settle_waiting(true);
  flush();
}

void Drainer::snapshot(std::vector<RingBuffer>& buffers) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const uint64_t cutoff = static_cast<uint64_t>(now.tv_sec) * 1000000000u +
                          static_cast<uint64_t>(now.tv_nsec);
  mapping_records_.clear();
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
      if (stacks_ != nullptr && changes_mappings(record) &&
          decoder_.decode(record) == SampleDecoder::Kind::process) {
        mapping_records_.push_back(decoder_.process());
      }
    }
    buffer.rewind();
  }
  if (stacks_ == nullptr) return;
  std::stable_sort(mapping_records_.begin(), mapping_records_.end(),
                   [](const format::ProcessEvent& a, const format::ProcessEvent& b) {
                     return a.time_ns < b.time_ns;
                   });
  stacks_->begin_pass(std::move(mapping_records_));
  mapping_records_ = {};
}

void Drainer::add_event(const format::Event& decoded) {
  const format::Event* e = &decoded;
  if (stacks_ != nullptr) {
    stacked_ = decoded;
    stacks_->collect(decoder_, stacked_);
    for (format::ProcessEvent& p : stacks_->take_seeded()) batch_.processes.push_back(std::move(p));
    e = &stacked_;
  }
  if (!filter_ || e->site_id < first_filtered_site_ || traced_cached(e->pid)) {
    accept(*e);
  } else {
    wait(*e);
  }
}

void Drainer::drain_buffer(RingBuffer& buffer, bool side_band, size_t& records) {
  size_t unreleased = 0;
  while (const perf_event_header* record = buffer.next()) {
    ++records;
    switch (decoder_.decode(record)) {
      case SampleDecoder::Kind::event:
        add_event(decoder_.event());
        break;
      case SampleDecoder::Kind::lost: {
        const format::LostEvent& l = decoder_.lost();
        if (side_band) {  // process records, not events: see lost_process_records()
          lost_process_records_ += l.count;
          break;
        }
        batch_.lost.push_back(l);
        lost_ += l.count;
        if (l.site_id < lost_per_site_.size()) lost_per_site_[l.site_id] += l.count;
        break;
      }
      case SampleDecoder::Kind::process: {
        const format::ProcessEvent& p = decoder_.process();
        // The recorder's own renames (EventSet::flush_pending_losses).
        if (p.pid == self_pid_ && p.kind == format::ProcessEventKind::comm) break;
        if (p.kind == format::ProcessEventKind::fork && p.pid != p.parent_pid &&
            (!filter_ || traced(p.parent_pid))) {
          traced_.insert(p.pid);
          new_processes_.push_back(static_cast<pid_t>(p.pid));
        }
        if (!p.comm.empty()) named_threads_.insert(p.tid);
        if (p.kind == format::ProcessEventKind::mmap) {
          if (watch_mappings_) new_mappings_.push_back(p);
          if (stacks_ == nullptr) break;
        }
        batch_.processes.push_back(p);
        if (stacks_ != nullptr) stacks_->complete(batch_.processes.back());
        break;
      }
      case SampleDecoder::Kind::none:
        break;
    }
    if (++unreleased == kReleaseEvery) {
      buffer.end_read();
      unreleased = 0;
    }
  }
  // Hand the space back before the next buffer so the kernel can refill it.
  buffer.end_read();
}

size_t Drainer::drain(std::vector<RingBuffer>& buffers) {
  size_t records = 0;
  snapshot(buffers);  // leaves each buffer at its snapshot's start
  for (size_t i = 0; i < buffers.size(); ++i)
    drain_buffer(buffers[i], i >= side_band_from_, records);
  if (stacks_ != nullptr) stacks_->end_pass();
  settle_waiting(false);
  flush();
  return records;
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

std::vector<pid_t> Drainer::take_new_processes() {
  std::vector<pid_t> out;
  out.swap(new_processes_);
  return out;
}

}  // namespace usdt::record
