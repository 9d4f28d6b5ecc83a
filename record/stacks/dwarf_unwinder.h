// Unwinds a user stack sampled at a probe hit (usdt-record -g dwarf) with
// libdw's CFI (.eh_frame / .debug_frame), while the traced process is alive:
// the trace then stores frame addresses only (FORMAT.md, stacks section).
// Memory is read only from the stack copy the kernel took at the hit; a walk
// that needs anything else stops there and is marked truncated, never guessed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "record/stacks/process_mappings.h"

namespace usdt::record {

class SampledRegs;

// The user registers at the hit, x86-64, by DWARF register number
// (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip).
struct UnwindRegisters {
  std::array<uint64_t, 17> value{};
  uint32_t valid = 0;  // bit n: value[n] was sampled
};

// Converts a sample's registers (perf numbering) to DWARF numbering.
UnwindRegisters unwind_registers_from_perf(const SampledRegs& regs);

// Caches per process (modules, CFI rows by pc) and per file (load layouts);
// not thread-safe: one thread uses one DwarfUnwinder. Frames: frames[0] is
// the ip, the others raw return addresses (not minus 1).
class DwarfUnwinder {
 public:
  DwarfUnwinder();
  ~DwarfUnwinder();
  DwarfUnwinder(const DwarfUnwinder&) = delete;
  DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

  // Walks the stack of process pid: regs at the hit, stack = stack_size bytes
  // copied from regs' rsp upward. Appends the frames (the ip, then return
  // addresses, innermost first) to *frames, at most max_depth. Returns true
  // when the walk stopped before the outermost frame (no mapping or no
  // unwind table for an address, a read beyond the copy, a looping or
  // invalid frame, max_depth reached).
  bool unwind(uint32_t pid, const ProcessMappings& maps, const UnwindRegisters& regs,
              const uint8_t* stack, size_t stack_size, size_t max_depth,
              std::vector<uint64_t>* frames);

  // Drops what is cached for pid (it exec'd or exited).
  void forget(uint32_t pid);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace usdt::record
