// Call chains for dwarf_unwinder_test: each captures its own registers and
// a copy of its stack, as PERF_SAMPLE_REGS_USER / STACK_USER would at a
// probe hit, and records the return addresses a correct walk must find.
// The same chain is compiled twice (unwind_chain_*.cpp): -O0 with frame
// pointers and -O2 without.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "record/stacks/dwarf_unwinder.h"

struct CapturedStack {
  usdt::record::UnwindRegisters regs;
  std::vector<uint8_t> stack;  // from regs' rsp upward
  uint64_t ra_capture = 0;     // capture's return address (into chain_b / compare)
  uint64_t ra_b = 0;           // chain_b's (into chain_a)
  uint64_t ra_a = 0;           // chain_a's / sort_caller's (into the test)
};

namespace unwind_chain_fp {
// chain_a -> chain_b -> capture; want: bytes of stack to copy (at most up
// to the top of the thread's stack).
int chain_a(CapturedStack* out, size_t want);
}  // namespace unwind_chain_fp

namespace unwind_chain_nofp {
int chain_a(CapturedStack* out, size_t want);
// sort_caller -> qsort (libc) -> compare -> capture.
int sort_caller(CapturedStack* out, size_t want);
// signal_caller -> raise (libc) -> the kernel's signal frame -> on_signal ->
// capture: the signal trampoline's CFI needs DWARF expressions.
int signal_caller(CapturedStack* out, size_t want);
}  // namespace unwind_chain_nofp
