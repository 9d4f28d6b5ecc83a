// How the BPF capture program (record/kernel/bpf/) reads each argument of a
// probe site at the hit, from the trapped task's registers and memory:
//
//   constant   from the spec ($N; $sym, plus the file's load bias in a
//              position-independent file);
//   register   any general-purpose register, %ah-style high bytes included;
//   memory     base + index * scale + displacement, a symbol's address
//              (plus the load bias where the file moves) with or without a
//              base and index register, absolute addresses; read with
//              bpf_probe_read_user, missing when the read faults;
//   string     a char * (in a register or in memory), read with
//              bpf_probe_read_user_str up to --string-bytes, cut and marked.
// Missing, with the reason said once at start: %xmm registers (not in the
// trapped task's pt_regs), %fs:/%gs: operands (thread-local storage),
// unresolved symbols, undecodable specs, %rip-relative operands without a
// symbol.
//
// The load bias is the trapped instruction's address minus its link-time
// address (the site's probe_address); a uretprobe traps at its caller's
// return address, so its arguments never use it.
//
// Compared with the sampled path (site_sampling.h), base-plus-index memory
// operands and symbols added to a register in a position-independent file,
// which the kernel's fetch-args cannot express, are exact here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/arg_spec.h"
#include "record/kernel/bpf/capture_abi.h"
#include "record/plan/site_sampling.h"
#include "record/record_options.h"

namespace usdt::record {

struct BpfSitePlan {
  // What the trace and the warnings say of each argument: its source
  // (constant, register, read in the kernel), why it is missing, which are
  // strings. No registers, stack or fetch-args are sampled.
  SiteSampling sampling;
  usdt_bpf_site site{};  // what the program reads
};

// probe_address: the link-time address of the probed instruction;
// return_probe: a uretprobe (no load bias).
BpfSitePlan plan_bpf_site(const std::vector<ArgSpec>& args, Arch arch,
                          const SamplingChoices& choices, uint64_t probe_address,
                          bool return_probe = false);

// One line for `usdt-record -l -v`: how the BPF path reads an argument, or why not.
std::string describe_bpf_source(const BpfSitePlan& plan, size_t arg);

// `-l -v`, per argument: the bracket of its line (how the path --capture
// names reads it; auto and sample: the sampled path) and, with auto, a line
// of its own for the BPF path ("" otherwise).
struct ArgListing {
  std::string bracket;
  std::string bpf_line;
};
ArgListing list_arg_paths(const SiteSampling& sampled, const BpfSitePlan& bpf, size_t arg,
                          CaptureMode capture);

}  // namespace usdt::record
