#include "record/session/bpf_source.h"

#include <ctime>

#include "record/session/recording_metadata.h"

namespace usdt::record {
namespace {

// Records read before their space goes back to the program (as the perf
// rings' drain does): a slow pass must not keep the whole ring.
constexpr size_t kReleaseEvery = 256;

}  // namespace

Result<std::unique_ptr<BpfSource>> BpfSource::create(const BpfCapture& capture) {
  Result<BpfRing> ring = BpfRing::map(capture.ring_fd(), capture.ring_bytes());
  if (!ring) return ring.error();
  std::unique_ptr<BpfSource> source(new BpfSource(capture, std::move(*ring)));
  source->decoder_.set_call_graph(capture.call_graph());
  source->last_pass_ns_ = clock_ns(CLOCK_MONOTONIC);
  return source;
}

void BpfSource::add_site(uint32_t site_id, uint8_t arg_count, uint16_t string_mask,
                         const CallerRepair& repair) {
  decoder_.set_site(site_id, arg_count, string_mask, repair);
  sites_.push_back(site_id);
  const size_t needed = (size_t{site_id} + 1) * capture_.cpu_count();
  if (lost_seen_.size() < needed) lost_seen_.resize(needed, 0);
}

size_t BpfSource::drain_into(Drainer& drainer) {
  size_t records = 0;
  size_t unreleased = 0;
  const bool packs = drainer.packs();
  const bool stacks = capture_.call_graph() != USDT_BPF_STACKS_NONE;
  ring_.begin_read();
  for (BpfRingRecord record = ring_.next(); record.data != nullptr; record = ring_.next()) {
    if (stacks) {
      if (!decoder_.decode(record)) continue;
      if (decoder_.event().time_ns > drainer.pass_ns()) {
        ring_.unread_last();
        break;
      }
      ++records;
      drainer.take_event(decoder_.event(), decoder_.stack_inputs());
    } else {
      ++records;
      const size_t words = packs ? decoder_.pack(record, drainer.packed_room()) : 0;
      if (words == 0 || !drainer.commit_packed(words)) {
        if (decoder_.decode(record)) drainer.take_event(decoder_.event(), decoder_.stack_inputs());
      }
    }
    if (++unreleased == kReleaseEvery) {
      ring_.end_read();
      unreleased = 0;
    }
  }
  ring_.end_read();
  take_losses(drainer);
  return records;
}

void BpfSource::take_losses(Drainer& drainer) {
  const uint64_t now = clock_ns(CLOCK_MONOTONIC);
  const uint32_t cpus = capture_.cpu_count();
  for (uint32_t site : sites_) {
    for (uint32_t cpu = 0; cpu < cpus; ++cpu) {
      const uint64_t count = capture_.lost(site, cpu);
      uint64_t& seen = lost_seen_[size_t{site} * cpus + cpu];
      if (count <= seen) continue;
      format::LostEvent lost;
      lost.time_begin_ns = last_pass_ns_;
      lost.time_end_ns = now;
      lost.cpu = cpu;
      lost.site_id = site;
      lost.count = count - seen;
      seen = count;
      lost_ += lost.count;
      drainer.add_lost(lost);
    }
  }
  last_pass_ns_ = now;
}

}  // namespace usdt::record
