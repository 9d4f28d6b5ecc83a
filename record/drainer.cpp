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
  batch_ = EventBatch();
  batch_.events.reserve(kBatchRecords);
}

void Drainer::add(const format::ProcessEvent& event) { batch_.processes.push_back(event); }

size_t Drainer::drain(std::vector<RingBuffer>& buffers) {
  size_t records = 0;
  for (RingBuffer& buffer : buffers) {
    buffer.begin_read();
    while (const perf_event_header* record = buffer.next()) {
      ++records;
      switch (decoder_.decode(record)) {
        case SampleDecoder::Kind::event: {
          const format::Event& e = decoder_.event();
          batch_.events.push_back(e);
          ++events_;
          if (e.site_id < events_per_site_.size()) ++events_per_site_[e.site_id];
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
          if (p.kind == format::ProcessEventKind::fork && p.pid != p.parent_pid) {
            new_processes_.push_back(static_cast<pid_t>(p.pid));
          }
          batch_.processes.push_back(p);
          break;
        }
        case SampleDecoder::Kind::none:
          break;
      }
      if (batch_.events.size() >= kBatchRecords) flush();
    }
    // Hand the space back before the next buffer so the kernel can refill it.
    buffer.end_read();
  }
  flush();
  return records;
}

std::vector<pid_t> Drainer::take_new_processes() {
  std::vector<pid_t> out;
  out.swap(new_processes_);
  return out;
}

}  // namespace usdt::record
