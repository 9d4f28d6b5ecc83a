// -g fp at sites whose frame the kernel's frame-pointer walk misreads
// (record/stacks/site_frame.h): what the sample must carry so that the
// stack names the caller, and how the callchain is mended with it.
//
// The kernel's callchain is the ip, then the return addresses its walk
// reads from %rbp: 8(%rbp), then 8 above each saved %rbp. At a site where
// no frame is set up and %rbp is still the caller's, its second entry is
// read from the caller's frame: the caller's own return address, i.e. the
// caller's caller, which is right. Only the caller is missing; its return
// address is at a known place above %rsp (the CFA rule), and the sample
// copies those 8 bytes (PERF_SAMPLE_STACK_USER) to insert them after the ip.
// Nothing the kernel's walk gave is removed unless it is known to be wrong:
// the word at (%rsp) the kernel itself added at an instruction it took for
// an entry, when that is no return address here; and the walk when %rbp no
// longer holds the caller's frame (its saved copy and the register differ).
#pragma once

#include <cstdint>
#include <vector>

#include "record/kernel/sample_decoder.h"
#include "record/resolve/probe_resolver.h"
#include "record/stacks/site_frame.h"

namespace usdt::record {

// Whether the kernel adds the word at (%rsp) after the ip at an instruction
// that looks like a function's entry (record/kernel/entry_callchain.h).
enum class KernelEntryCaller : uint8_t { unknown, added, not_added };

// What -g fp does at a site with this frame. kernel matters only when
// frame.looks_like_entry; unknown there leaves the site as the kernel walks
// it (no repair: nothing is added that may be there twice).
CallerRepair plan_caller_repair(const SiteFrame& frame, KernelEntryCaller kernel);

// The stack bytes a repair reads (0: none) and whether it reads %rbp and %rsp.
uint32_t caller_repair_stack_bytes(const CallerRepair& repair);
bool caller_repair_reads_registers(const CallerRepair& repair);

// Mends frames (the callchain's user entries: frames[0] the ip, then return
// addresses) by repair, with the sample's registers and stack copy. When
// what follows the ip is known not to be the caller's chain, or the caller's
// return address is not in the copy, the stack keeps only what is known and
// *truncated is set.
void repair_caller(const CallerRepair& repair, const SampledRegs& regs, const StackDump& stack,
                   std::vector<uint64_t>* frames, bool* truncated);

// Plans the repairs of a recording's sites: reads each site's frame, and
// asks the kernel (once per process) what it does at entries only when a
// site's instruction looks like one. Not thread-safe.
class CallerRepairPlanner {
 public:
  // The site's repair; none for uretprobes and tracepoints, whose samples are
  // taken in the caller or in the kernel.
  CallerRepair plan(const ResolvedSite& site);

 private:
  SiteFrameReader frames_;
};

// The kernel's answer, asked once per process (a probe fired in this
// process: record/kernel/entry_callchain.h); unknown when it cannot be asked.
KernelEntryCaller kernel_entry_caller();

}  // namespace usdt::record
