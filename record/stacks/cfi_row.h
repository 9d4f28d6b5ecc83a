// The CFI row of one pc (DWARF 5, 6.4.1 "Structure of Call Frame
// Information"), reduced to the rules compiled x86-64 code uses: the CFA is a
// register plus an offset, and each register is undefined, unchanged, saved
// at CFA+N, equal to CFA+N or copied from another register. With such rows
// the unwinder steps from frame to frame itself, without libdwfl's per-frame
// allocations and expression interpreter (about ten times faster); rows that
// need a DWARF expression (PLT stubs, signal trampolines) are not "simple" and
// go through libdwfl.
//
// The rules are read through libdw's dwarf_frame_* calls, so they include the
// ABI's defaults for registers the CIE does not mention (backends/x86_64_cfi.c:
// rsp is the CFA, the callee-saved registers keep their value, the others are
// undefined), exactly as libdwfl's own unwinder sees them.
#pragma once

#include <elfutils/libdw.h>

#include <array>
#include <cstdint>

namespace usdt::record {

// DWARF register numbers of x86-64 (the System V psABI, figure 3.36).
constexpr unsigned kDwarfRbp = 6;
constexpr unsigned kDwarfRsp = 7;
constexpr unsigned kDwarfRip = 16;  // the return address column
constexpr unsigned kDwarfRegs = 17;

struct RegRule {
  enum class Kind : uint8_t {
    undefined,      // unknown in the caller
    same_value,     // the callee did not change it
    at_cfa_offset,  // saved in memory at CFA + offset
    cfa_offset,     // its value is CFA + offset
    in_register,    // its value is in register `reg` of the callee
  };
  Kind kind = Kind::undefined;
  uint8_t reg = 0;
  int64_t offset = 0;
};

struct CfiRow {
  bool simple = false;  // every rule below is representable; else use libdwfl
  uint8_t cfa_reg = 0;
  int64_t cfa_offset = 0;
  std::array<RegRule, kDwarfRegs> rules{};
};

// Reads frame's row. A rule or CFA that needs a DWARF expression, a register
// beyond rip, or a return address column other than rip make it not simple.
CfiRow read_cfi_row(Dwarf_Frame* frame);

// One rule of frame's row (regno < kDwarfRegs); false when it needs a DWARF
// expression or names a register beyond rip.
bool read_cfi_rule(Dwarf_Frame* frame, unsigned regno, RegRule* rule);

// frame's CFA when it is a register plus an offset; false for an expression.
bool read_cfi_cfa(Dwarf_Frame* frame, uint8_t* reg, int64_t* offset);

// A frame's registers, by DWARF number.
struct FrameRegs {
  std::array<uint64_t, kDwarfRegs> value{};
  uint32_t valid = 0;  // bit n: value[n] is known
  bool has(unsigned n) const { return (valid >> n) & 1; }
};

// Computes the caller's registers from the callee's with a simple row; read
// fetches 8 bytes of memory (false when they are not available, leaving that
// register unknown, as libdwfl does). Returns false when the CFA cannot be
// computed (its register is unknown).
template <typename Read>
bool step_cfi_row(const CfiRow& row, const FrameRegs& callee, Read read, FrameRegs* caller) {
  if (!callee.has(row.cfa_reg)) return false;
  const uint64_t cfa = callee.value[row.cfa_reg] + static_cast<uint64_t>(row.cfa_offset);
  caller->valid = 0;
  for (unsigned n = 0; n < kDwarfRegs; ++n) {
    const RegRule& rule = row.rules[n];
    uint64_t value = 0;
    switch (rule.kind) {
      case RegRule::Kind::undefined:
        continue;
      case RegRule::Kind::same_value:
        if (!callee.has(n)) continue;
        value = callee.value[n];
        break;
      case RegRule::Kind::at_cfa_offset:
        if (!read(cfa + static_cast<uint64_t>(rule.offset), &value)) continue;
        break;
      case RegRule::Kind::cfa_offset:
        value = cfa + static_cast<uint64_t>(rule.offset);
        break;
      case RegRule::Kind::in_register:
        if (!callee.has(rule.reg)) continue;
        value = callee.value[rule.reg];
        break;
    }
    caller->value[n] = value;
    caller->valid |= 1u << n;
  }
  return true;
}

}  // namespace usdt::record
