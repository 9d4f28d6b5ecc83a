// How each argument of a probe site is read at the hit, the cheapest way
// that is exact, and what the site's sample must carry for it:
//
//   constant          from the spec itself ($N; $sym in a fixed-address
//                     executable);
//   sampled register  PERF_SAMPLE_REGS_USER (only the registers named);
//   sampled stack     PERF_SAMPLE_STACK_USER from %rsp upwards, sized from
//                     the site's own %rsp-relative operands (up to
//                     --stack-bytes; scaled-index stack operands, whose
//                     offset is known only at the hit, get --stack-bytes);
//   kernel read       a tracefs uprobe event's fetch-arg (record/attach/):
//                     memory elsewhere (heap through a register, symbols
//                     through %rip, a symbol plus a base register in a
//                     fixed-address executable, absolute addresses),
//                     %rbp-relative operands (their distance from %rsp is
//                     unknown), the red zone below %rsp, stack deeper than
//                     the dump, and strings (--string);
//   not in sample     what no sample and no fetch-arg can hold, recorded as
//                     missing with the reason said once at start: %xmm
//                     registers, an index register outside the stack, a
//                     symbol plus a register (or $sym) in a
//                     position-independent file (the kernel cannot add the
//                     load bias to a register), %fs:/%gs: (thread-local)
//                     operands, unresolved symbols, undecodable specs.
//
// Without tracefs (a container, lockdown) there are no kernel reads: stack
// operands fall back to a dump of up to kMaxStackBytes, the rest is missing.
// Kernel reads are made for x86-64 only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/arg_spec.h"

namespace usdt::record {

// The kernel caps a sample at 64 KiB; keep the stack dump well below.
constexpr uint32_t kMaxStackBytes = 32768;

// The longest string the kernel's fetch-args copy, NUL included
// (MAX_STRING_SIZE in kernel/trace/trace_probe.h): longer ones are cut.
constexpr uint32_t kKernelMaxString = 4096;

struct SamplingChoices {
  uint32_t stack_bytes = 512;   // --stack-bytes: the dump for frame-relative operands
  bool kernel_reads = true;     // tracefs uprobe events can be made
  uint32_t string_mask = 0;     // bit i: argument i is a char* to read as a string
  uint64_t file_base = 0;       // ResolvedSite::file_base, for symbols read by the kernel
};

struct SiteSampling {
  uint64_t regs_mask = 0;                    // sample_regs_user
  uint32_t stack_bytes = 0;                  // sample_stack_user, multiple of 8; 0 = none
  std::vector<ArgSource> sources;            // per argument: how it is obtained
  std::vector<std::string> missing_reasons;  // per argument: "" or why it is never recorded
  // Per argument: the tracefs fetch-args that read it (kernel_read only),
  // "NAME=FETCH:TYPE ..." with the field names of kernel_read_fields().
  std::vector<std::string> fetch_args;
  uint32_t string_mask = 0;  // arguments recorded as strings
  // Whether a tracefs event must read some argument (fetch-args).
  bool needs_kernel_reads() const;
};

SiteSampling plan_site_sampling(const std::vector<ArgSpec>& args, Arch arch,
                                const SamplingChoices& choices);

// One line for `usdt-record -l -v`: how an argument is read, or why not.
std::string describe_source(const SiteSampling& plan, size_t arg);

// The argument specs of a plain uprobe (function entry: the first six integer
// argument registers of the x86-64 SysV ABI, 8 bytes each) or a uretprobe
// (the return value in %rax).
std::vector<ArgSpec> function_entry_args();
std::vector<ArgSpec> function_return_args();
// %rsp, 8 bytes: the frame of a function probe's hit (FORMAT.md 3.4).
ArgSpec stack_pointer_arg();

}  // namespace usdt::record
