#include "record/stacks/fp_caller.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/arg_spec.h"
#include "record/kernel/entry_callchain.h"
#include "record/kernel/kernel_features.h"

namespace usdt::record {
namespace {

// The 8 bytes at %rsp + at in the stack copy, when it holds them.
std::optional<uint64_t> stack_word(const StackDump& stack, int32_t at) {
  if (at < 0 || stack.data == nullptr || stack.size < 8 ||
      static_cast<uint64_t>(at) > stack.size - 8) {
    return std::nullopt;
  }
  uint64_t v;
  std::memcpy(&v, stack.data + at, 8);
  return v;
}

// Whether the kernel's walk after the ip started from the caller's frame,
// at a site whose CFI says the caller's %rbp was saved at rbp_saved_at: the
// register still equals that copy. nullopt when the sample cannot tell.
// *frame_set_up: %rbp points at the copy, right below the return address (a
// frame set up after all): the walk started at this frame and read the
// caller's return address first.
std::optional<bool> walk_from_callers_frame(const CallerRepair& repair, const SampledRegs& regs,
                                            const StackDump& stack, bool* frame_set_up) {
  std::optional<uint64_t> saved = stack_word(stack, repair.rbp_saved_at);
  std::optional<uint64_t> bp = regs.get(x86_reg::bp);
  std::optional<uint64_t> sp = regs.get(x86_reg::sp);
  if (!saved || !bp || !sp) return std::nullopt;
  // push %rbp; mov %rsp,%rbp without a CFI row for the mov: %rbp is this
  // function's frame, whose return address the walk read first.
  *frame_set_up = *bp == *sp + static_cast<uint64_t>(repair.rbp_saved_at) &&
                  repair.rbp_saved_at + 8 == repair.return_address_at;
  return *bp == *saved;
}

}  // namespace

CallerRepair plan_caller_repair(const SiteFrame& frame, KernelEntryCaller kernel) {
  CallerRepair repair;
  if (frame.looks_like_entry && kernel == KernelEntryCaller::unknown) return repair;
  const bool kernel_added = frame.looks_like_entry && kernel == KernelEntryCaller::added;
  switch (frame.kind) {
    case SiteFrame::Kind::no_cfi:
    case SiteFrame::Kind::other_rule:
    case SiteFrame::Kind::far_stack_top:
      // Not known: the kernel's walk (and its own guess) as it is.
      return repair;
    case SiteFrame::Kind::frame_set_up:
      // The walk is right; a word the kernel added is not the caller.
      repair.drop_kernel_entry = kernel_added;
      return repair;
    case SiteFrame::Kind::stack_top:
      break;
  }
  // At a real entry the kernel's guess is the caller itself.
  if (kernel_added && frame.return_address_at == 0 && frame.rbp_unchanged) return repair;
  repair.drop_kernel_entry = kernel_added;
  repair.return_address_at = static_cast<int32_t>(frame.return_address_at);
  if (!frame.rbp_unchanged) repair.rbp_saved_at = frame.rbp_saved_at;
  return repair;
}

uint32_t caller_repair_stack_bytes(const CallerRepair& repair) {
  if (!repair.needed()) return 0;
  int64_t end = repair.drop_kernel_entry ? 8 : 0;
  end = std::max<int64_t>(end, repair.return_address_at + 8);
  end = std::max<int64_t>(end, repair.rbp_saved_at + 8);
  return static_cast<uint32_t>((end + 7) / 8 * 8);
}

bool caller_repair_reads_registers(const CallerRepair& repair) {
  return repair.return_address_at >= 0 && repair.rbp_saved_at >= 0;
}

void repair_caller(const CallerRepair& repair, const SampledRegs& regs, const StackDump& stack,
                   std::vector<uint64_t>* frames, bool* truncated) {
  if (frames->empty() || !repair.needed()) return;
  if (repair.drop_kernel_entry && frames->size() >= 2) {
    // The kernel's word is there only when its read of (%rsp) succeeded.
    std::optional<uint64_t> top = stack_word(stack, 0);
    if (top && (*frames)[1] == *top) frames->erase(frames->begin() + 1);
  }
  if (repair.return_address_at < 0) return;
  std::optional<uint64_t> caller = stack_word(stack, repair.return_address_at);
  if (!caller) {
    // The caller is missing and not in the sample: only the ip is known.
    frames->resize(1);
    *truncated = true;
    return;
  }
  if (repair.rbp_saved_at >= 0) {
    bool frame_set_up = false;
    std::optional<bool> from_caller = walk_from_callers_frame(repair, regs, stack, &frame_set_up);
    if (frame_set_up) return;
    if (from_caller == false) {
      // The walk started from another %rbp: its frames are not the caller's.
      frames->resize(1);
      frames->push_back(*caller);
      *truncated = true;
      return;
    }
  }
  frames->insert(frames->begin() + 1, *caller);
}

CallerRepair CallerRepairPlanner::plan(const ResolvedSite& site) {
  if (site.kind != format::ProbeKind::usdt && site.kind != format::ProbeKind::uprobe) {
    return CallerRepair();
  }
  const SiteFrame frame = frames_.at(site.open_path, site.file_offset + site.file_base,
                                     site.file_offset, site.function_entry);
  return plan_caller_repair(
      frame, frame.looks_like_entry ? kernel_entry_caller() : KernelEntryCaller::unknown);
}

KernelEntryCaller kernel_entry_caller() {
  static const KernelEntryCaller answer = [] {
    Result<KernelFeatures> features = probe_kernel_features();
    if (!features) return KernelEntryCaller::unknown;
    Result<bool> added = probe_entry_caller_in_callchain(*features);
    if (!added) return KernelEntryCaller::unknown;
    return *added ? KernelEntryCaller::added : KernelEntryCaller::not_added;
  }();
  return answer;
}

}  // namespace usdt::record
