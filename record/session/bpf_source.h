// The BPF capture ring as the drain loop's second event source, beside the
// perf rings (drainer.h, EventSource): each pass reads the ring up to its
// producer's position, packs the records of sites without strings straight
// into the batch (as the usual perf sample is), hands the others to the
// drainer as decoded events, and turns what the program counted as lost
// (its ring was full) into lost records per site and CPU.
//
// Wakeups are adaptive: the program wakes the loop only when the unread data
// crosses a quarter of the ring (record/kernel/bpf/usdt_capture.bpf.c); the
// loop's own timeout takes what stays below it. The ring's descriptor is
// watched edge-triggered: it reports readable while anything is unread,
// which level-triggered would turn into a busy loop.
//
// With call stacks a pass takes the records stamped up to the drainer's
// pass time only, as the drainer takes the perf rings' samples: a frame is
// looked up in the mappings of its time, and the side band's records after
// that time are read in the next pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/result.h"
#include "record/kernel/bpf_capture.h"
#include "record/kernel/bpf_record_decoder.h"
#include "record/kernel/bpf_ring.h"
#include "record/session/drainer.h"

namespace usdt::record {

class BpfSource : public EventSource {
 public:
  // Maps capture's ring; capture outlives the source.
  static Result<std::unique_ptr<BpfSource>> create(const BpfCapture& capture);

  // A site whose events come through the ring (its plan: arguments,
  // strings; with -g fp, how its callchain is mended).
  void add_site(uint32_t site_id, uint8_t arg_count, uint16_t string_mask,
                const CallerRepair& repair);
  int fd() const { return capture_.ring_fd(); }

  size_t drain_into(Drainer& drainer) override;

  // Events lost because the ring was full, in all.
  uint64_t lost() const { return lost_; }
  uint64_t malformed() const { return decoder_.malformed(); }
  uint64_t corrupt_skips() const { return ring_.corrupt_skips(); }

 private:
  BpfSource(const BpfCapture& capture, BpfRing ring) : capture_(capture), ring_(std::move(ring)) {}
  // New counts of the program's lost counters, as lost records.
  void take_losses(Drainer& drainer);

  const BpfCapture& capture_;
  BpfRing ring_;
  BpfRecordDecoder decoder_;
  std::vector<uint32_t> sites_;      // the sites added, for the lost counters
  std::vector<uint64_t> lost_seen_;  // per site id x CPU: counts already taken
  uint64_t last_pass_ns_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace usdt::record
