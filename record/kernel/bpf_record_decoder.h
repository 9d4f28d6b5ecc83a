// Turns the records of the BPF capture program (capture_abi.h; the layout is
// in docs/internals.md, "The BPF capture path") into the events the sampled
// path makes of its samples: the same time, pid, tid, cpu, site and
// argument values, strings cut at --string-bytes and marked as such.
//
// The record carries the site id; its argument count and which arguments
// are strings come from the site's plan, registered with set_site(). A
// record shorter than its site's plan says, or of a site never registered,
// is skipped and counted, never read past its end.
//
// With call stacks (set_call_graph()) every record ends with its stack part:
// the registers, the stack from %rsp and (fp) the callchain, which
// stack_inputs() gives as a perf sample's would be (record/stacks/).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/trace_types.h"
#include "record/kernel/bpf_ring.h"
#include "record/kernel/packed_event.h"
#include "record/kernel/sample_decoder.h"

namespace usdt::record {

class BpfRecordDecoder {
 public:
  // The site's argument count and strings (bit i: argument i), and with -g
  // fp how its callchain is mended (record/stacks/fp_caller.h).
  void set_site(uint32_t site_id, uint8_t arg_count, uint16_t string_mask,
                const CallerRepair& repair = CallerRepair());
  // What the records carry for call stacks: USDT_BPF_STACKS_* (capture_abi.h).
  void set_call_graph(uint32_t mode);

  // A record of a site without strings, packed at out (room for
  // kPackedMaxWords; packed_event.h). Returns the words written, 0 for any
  // other record (decode() takes it) or a malformed one.
  size_t pack(const BpfRingRecord& record, uint64_t* out) {
    if (record.size < kHeadBytes) return 0;
    uint32_t site_id;
    std::memcpy(&site_id, record.data + kSiteAt, 4);
    if (site_id >= sites_.size()) return 0;
    const Site& site = sites_[site_id];
    if (site.strings != 0 || !site.known || record.size < kHeadBytes + 8u * site.arg_count)
      return 0;
    uint64_t time;
    uint32_t pid, tid;
    uint16_t cpu, missing;
    std::memcpy(&time, record.data, 8);
    std::memcpy(&pid, record.data + 8, 4);
    std::memcpy(&tid, record.data + 12, 4);
    std::memcpy(&cpu, record.data + 20, 2);
    std::memcpy(&missing, record.data + 22, 2);
    pack_header(out, time, pid, tid, cpu, site_id,
                packed_shape(site.arg_count, missing, 0, 0, false));
    std::memcpy(out + kPackedHeaderWords, record.data + kHeadBytes, 8u * site.arg_count);
    return kPackedHeaderWords + site.arg_count;
  }

  // Decodes any record into event() (valid, with its strings, until the
  // next call); false for a malformed one, counted in malformed().
  bool decode(const BpfRingRecord& record);
  const format::Event& event() const { return event_; }
  // The last decoded event's call stack inputs (empty without stacks);
  // valid while its record is.
  const StackInputs& stack_inputs() const { return stack_inputs_; }

  uint64_t malformed() const { return malformed_; }

 private:
  // struct usdt_bpf_record_head: time, pid, tid, site_id, cpu, missing.
  static constexpr size_t kHeadBytes = 24;
  static constexpr size_t kSiteAt = 16;
  struct Site {
    bool known = false;
    uint8_t arg_count = 0;
    uint16_t strings = 0;
    CallerRepair repair;
  };
  // The stack part from at (a multiple of 8) to the record's end into
  // stack_inputs_; false when it does not fit.
  bool decode_stack(const uint8_t* p, size_t size, size_t at, const Site& site);

  std::vector<Site> sites_;
  uint32_t call_graph_ = 0;
  SampledRegs regs_;
  CallerRepair no_repair_;
  StackInputs stack_inputs_{&regs_, {}, {}, &no_repair_};
  format::Event event_;
  std::array<format::StringArg, format::kMaxArgs> strings_;
  uint64_t malformed_ = 0;
};

}  // namespace usdt::record
