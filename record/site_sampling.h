// What a uprobe sample must carry so that a probe site's arguments can be
// decoded exactly, and which arguments cannot be read from a sample at all.
//
// Registers: only those the arguments name (a %eax operand needs perf
// register ax). Memory relative to %rsp or %rbp: the user stack dump
// (PERF_SAMPLE_STACK_USER) from %rsp upwards, sized to cover %rsp-relative
// operands exactly, and stack_option bytes for %rbp-relative ones (the frame's
// size is not known in advance; operands beyond the dump are missing).
// Operands below %rsp (the red zone GCC uses in leaf functions) lie outside
// any dump. Memory elsewhere (heap, globals via %rip, indexed), %xmm and
// undecodable specs are recorded as missing, with a reason said once at start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/arg_spec.h"

namespace usdt::record {

// The kernel caps a sample at 64 KiB; keep the stack dump well below.
constexpr uint32_t kMaxStackBytes = 32768;

struct SiteSampling {
  uint64_t regs_mask = 0;                    // sample_regs_user
  uint32_t stack_bytes = 0;                  // sample_stack_user, multiple of 8; 0 = none
  std::vector<ArgSource> sources;            // per argument: how it is obtained
  std::vector<std::string> missing_reasons;  // per argument: "" or why it is never recorded
};

// Plans the sample for one site. stack_option is the dump size for
// frame-pointer-relative operands (rounded up to 8, capped at kMaxStackBytes).
SiteSampling plan_site_sampling(const std::vector<ArgSpec>& args, Arch arch, uint32_t stack_option);

// The argument specs of a plain uprobe (function entry: the first six integer
// argument registers of the x86-64 SysV ABI, 8 bytes each) or a uretprobe
// (the return value in %rax).
std::vector<ArgSpec> function_entry_args();
std::vector<ArgSpec> function_return_args();

}  // namespace usdt::record
