#include "record/output/flight_ring.h"

#include <algorithm>

namespace usdt::record {

void FlightRing::push(std::shared_ptr<const RingChunk> chunk) {
  bytes_ += chunk->block.size();
  events_ += chunk->header.events;
  chunks_.push_back(Held{std::move(chunk), false});
  // The newest chunk stays, even alone larger than the ring.
  while (bytes_ > max_bytes_ && chunks_.size() > 1) pop_oldest(Cause::full);
}

void FlightRing::expire(uint64_t newest_ns) {
  if (max_age_ns_ == 0 || newest_ns < max_age_ns_) return;
  const uint64_t oldest_kept = newest_ns - max_age_ns_;
  while (!chunks_.empty() && chunks_.front().chunk->header.max_time_ns < oldest_kept) {
    pop_oldest(Cause::old);
  }
}

void FlightRing::pop_oldest(Cause cause) {
  const Held& oldest = chunks_.front();
  const RingChunk& c = *oldest.chunk;
  bytes_ -= c.block.size();
  events_ -= c.header.events;
  if (oldest.saved) {
    released_saved_ += c.header.events;
  } else if (oldest.saved_part) {
    released_partly_saved_ += c.header.events;
  } else if (cause == Cause::full) {
    overwritten_full_ += c.header.events;
  } else {
    overwritten_old_ += c.header.events;
  }
  horizon_ = std::max(horizon_, c.header.max_time_ns);
  std::vector<format::ProcessEvent> records = c.processes;
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  for (const format::ProcessEvent& p : records) base_names_.apply(p);
  // A thread that exited by the horizon has no record left after it.
  base_names_.forget_exited_before(horizon_);
  chunks_.pop_front();
}

std::vector<std::shared_ptr<const RingChunk>> FlightRing::take(uint64_t begin, uint64_t end) {
  std::vector<std::shared_ptr<const RingChunk>> out;
  for (Held& h : chunks_) {
    const format::ChunkHeader& header = h.chunk->header;
    if (header.records() == 0 || header.max_time_ns < begin || header.min_time_ns > end) continue;
    if (header.min_time_ns >= begin && header.max_time_ns <= end) {
      h.saved = true;
    } else {
      h.saved_part = true;
    }
    out.push_back(h.chunk);
  }
  return out;
}

std::vector<format::ProcessEvent> FlightRing::held_processes() const {
  std::vector<format::ProcessEvent> out;
  for (const Held& h : chunks_) {
    out.insert(out.end(), h.chunk->processes.begin(), h.chunk->processes.end());
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  return out;
}

uint64_t FlightRing::oldest_ns() const {
  uint64_t oldest = 0;
  for (const Held& h : chunks_) {
    if (h.chunk->header.records() == 0) continue;
    if (oldest == 0 || h.chunk->header.min_time_ns < oldest) oldest = h.chunk->header.min_time_ns;
  }
  return oldest;
}

}  // namespace usdt::record
