#include "record/kernel/bpf_record_decoder.h"

#include <algorithm>
#include <string_view>

#include "record/kernel/bpf/capture_abi.h"

namespace usdt::record {

static_assert(sizeof(usdt_bpf_record_head) == 24, "the record head the decoder reads");
static_assert(sizeof(usdt_bpf_stack_head) == 16, "the stack head the decoder reads");

namespace {

// The registers of a record's stack part, in perf's numbering (capture_abi.h).
constexpr uint64_t kFpRegsMask = uint64_t{1} << x86_reg::bp | uint64_t{1} << x86_reg::sp;
// ax..di, bp, sp, ip (0-8) and r8..r15 (16-23): what DWARF unwinding uses,
// as -g dwarf samples them (record/stacks/stack_collector.h).
constexpr uint64_t kDwarfRegsMask = 0x1ffull | (0xffull << 16);

}  // namespace

void BpfRecordDecoder::set_call_graph(uint32_t mode) {
  call_graph_ = mode;
  if (mode == USDT_BPF_STACKS_FP) regs_.set_layout(kFpRegsMask);
  if (mode == USDT_BPF_STACKS_DWARF) regs_.set_layout(kDwarfRegsMask);
}

void BpfRecordDecoder::set_site(uint32_t site_id, uint8_t arg_count, uint16_t string_mask,
                                const CallerRepair& repair) {
  if (site_id >= sites_.size()) sites_.resize(site_id + 1);
  Site& site = sites_[site_id];
  site.known = true;
  site.arg_count = std::min<uint8_t>(arg_count, static_cast<uint8_t>(format::kMaxArgs));
  site.strings = string_mask;
  site.repair = repair;
}

bool BpfRecordDecoder::decode(const BpfRingRecord& record) {
  const uint8_t* p = record.data;
  const size_t size = record.size;
  uint32_t site_id = 0;
  if (size >= kHeadBytes) std::memcpy(&site_id, p + kSiteAt, 4);
  if (size < kHeadBytes || site_id >= sites_.size() || !sites_[site_id].known) {
    ++malformed_;
    return false;
  }
  const Site& site = sites_[site_id];
  size_t at = kHeadBytes + 8u * site.arg_count;
  if (size < at) {
    ++malformed_;
    return false;
  }
  uint16_t cpu, missing;
  std::memcpy(&event_.time_ns, p, 8);
  std::memcpy(&event_.pid, p + 8, 4);
  std::memcpy(&event_.tid, p + 12, 4);
  std::memcpy(&cpu, p + 20, 2);
  std::memcpy(&missing, p + 22, 2);
  event_.cpu = cpu;
  event_.site_id = site_id;
  event_.arg_count = site.arg_count;
  event_.missing_mask = missing;
  event_.string_mask = site.strings;
  event_.stack_depth = 0;
  event_.stack_truncated = false;
  for (size_t i = 0; i < site.arg_count; ++i) {
    std::memcpy(&event_.args[i], p + kHeadBytes + 8 * i, 8);
    if (((site.strings >> i) & 1) == 0) continue;
    // The string's length word, then its bytes.
    if (size - at < 4) {
      ++malformed_;
      return false;
    }
    uint32_t word;
    std::memcpy(&word, p + at, 4);
    at += 4;
    const uint32_t length = word & ~USDT_BPF_STRING_CUT;
    if (size - at < length) {
      ++malformed_;
      return false;
    }
    strings_[i].bytes = std::string_view(reinterpret_cast<const char*>(p + at), length);
    strings_[i].truncated = (word & USDT_BPF_STRING_CUT) != 0;
    at += length;
    event_.args[i] = (missing >> i) & 1 ? 0 : reinterpret_cast<uint64_t>(&strings_[i]);
  }
  for (size_t i = site.arg_count; i < format::kMaxArgs; ++i) event_.args[i] = 0;
  if (call_graph_ != USDT_BPF_STACKS_NONE && !decode_stack(p, size, (at + 7) & ~size_t{7}, site)) {
    ++malformed_;
    return false;
  }
  return true;
}

bool BpfRecordDecoder::decode_stack(const uint8_t* p, size_t size, size_t at, const Site& site) {
  usdt_bpf_stack_head head;
  if (at > size || size - at < sizeof head) return false;
  std::memcpy(&head, p + at, sizeof head);
  at += sizeof head;
  const uint32_t want_regs =
      call_graph_ == USDT_BPF_STACKS_FP ? USDT_BPF_FP_REGS : USDT_BPF_DWARF_REGS;
  // Each part bounded before it is added: no sum of the record's numbers wraps.
  if (head.regs != want_regs || head.stack_size > head.stack_room || head.stack_room % 8 != 0 ||
      head.stack_room > USDT_BPF_DWARF_BYTES_MAX + 8 || head.frames > USDT_BPF_FP_DEPTH_MAX ||
      size - at < 8 * uint64_t{head.regs} + head.stack_room + 8 * uint64_t{head.frames}) {
    return false;
  }
  regs_.set_values(p + at, true);
  at += 8 * size_t{head.regs};
  stack_inputs_.regs = &regs_;
  stack_inputs_.stack = StackDump{head.stack_size != 0 ? p + at : nullptr, head.stack_size};
  at += head.stack_room;
  stack_inputs_.callchain = Callchain{p + at, head.frames};
  stack_inputs_.repair = &site.repair;
  return true;
}

}  // namespace usdt::record
