#include "record/drainer.h"

namespace usdt::record {
namespace {

// Big enough to make queue hand-offs rare, small enough to keep the writer busy.
constexpr size_t kBatchRecords = 8192;

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

void Drainer::set_pid_filter(const std::vector<pid_t>& roots) {
  filter_ = true;
  for (pid_t pid : roots) traced_.insert(static_cast<uint32_t>(pid));
}

void Drainer::accept(const format::Event& e) {
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
  for (const format::Event& e : waiting_) {
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

size_t Drainer::drain(std::vector<RingBuffer>& buffers) {
  size_t records = 0;
  for (RingBuffer& buffer : buffers) {
    buffer.begin_read();
    while (const perf_event_header* record = buffer.next()) {
      ++records;
      switch (decoder_.decode(record)) {
        case SampleDecoder::Kind::event: {
          const format::Event& e = decoder_.event();
          if (!filter_ || traced_cached(e.pid)) {
            accept(e);
          } else {
            waiting_next_.push_back(e);
          }
          break;
        }
        case SampleDecoder::Kind::lost: {
          const format::LostEvent& l = decoder_.lost();
          batch_.lost.push_back(l);
          lost_ += l.count;
          if (l.site_id < lost_per_site_.size()) lost_per_site_[l.site_id] += l.count;
          break;
        }
        case SampleDecoder::Kind::process: {
          const format::ProcessEvent& p = decoder_.process();
          if (p.kind == format::ProcessEventKind::fork && p.pid != p.parent_pid &&
              (!filter_ || traced(p.parent_pid))) {
            traced_.insert(p.pid);
            new_processes_.push_back(static_cast<pid_t>(p.pid));
          }
          if (!p.comm.empty()) named_threads_.insert(p.tid);
          batch_.processes.push_back(p);
          break;
        }
        case SampleDecoder::Kind::none:
          break;
      }
    }
    // Hand the space back before the next buffer so the kernel can refill it.
    buffer.end_read();
  }
  settle_waiting(false);
  flush();
  return records;
}

std::vector<pid_t> Drainer::take_new_processes() {
  std::vector<pid_t> out;
  out.swap(new_processes_);
  return out;
}

}  // namespace usdt::record
