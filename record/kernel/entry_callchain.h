// Whether this kernel's user callchain (PERF_SAMPLE_CALLCHAIN) at a uprobe
// names the caller by itself when the probed instruction looks like a
// function's entry. Linux 6.11 added it (and stable kernels took it): when
// the instruction is push %rbp or endbr64, perf_callchain_user() stores the
// word at (%rsp) after the ip, taking it for the return address, before it
// walks the frame pointers (arch/x86/events/core.c, is_uprobe_at_func_entry).
// At a real entry that is the caller; a recorder that adds the caller itself
// must then not add it twice. No kernel version says it for sure (backports),
// so it is found out by firing such a probe once, in this process.
#pragma once

#include "common/result.h"
#include "record/kernel/kernel_features.h"

namespace usdt::record {

// Opens a uprobe on a function of this process that starts with push %rbp,
// with a callchain, calls it once and reads the sample. True when the chain
// holds the function's return address after the ip. Fails when the probe
// cannot be opened or fired (no uprobe PMU, no permission). Costs a probe's
// open and close (tens of milliseconds in the kernel).
Result<bool> probe_entry_caller_in_callchain(const KernelFeatures& features);

}  // namespace usdt::record
