#include "record/stacks/cfi_row.h"

#include <dwarf.h>

namespace usdt::record {
namespace {

// libdw hands every rule out as a small DWARF expression (dwarf_frame_register):
//   undefined   no operations, ops == ops_mem
//   same value  no operations, ops == nullptr
//   offset(N)   DW_OP_call_frame_cfa [DW_OP_plus_uconst N]          (a location)
//   val_offset  DW_OP_call_frame_cfa [DW_OP_plus_uconst N] DW_OP_stack_value
//   register(R) DW_OP_regx R (or DW_OP_regR)
// Anything else came from an expression in the CFI.
bool read_rule(Dwarf_Frame* frame, unsigned regno, RegRule* rule) {
  Dwarf_Op ops_mem[3];
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_register(frame, static_cast<int>(regno), ops_mem, &ops, &nops) != 0) {
    return false;
  }
  if (nops == 0) {
    // libdwfl treats a bogus empty rule like an undefined one.
    rule->kind = ops == nullptr ? RegRule::Kind::same_value : RegRule::Kind::undefined;
    return true;
  }
  if (nops == 1 &&
      (ops[0].atom == DW_OP_regx || (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
    const uint64_t reg = ops[0].atom == DW_OP_regx ? ops[0].number : ops[0].atom - DW_OP_reg0;
    if (reg >= kDwarfRegs) return false;
    rule->kind = RegRule::Kind::in_register;
    rule->reg = static_cast<uint8_t>(reg);
    return true;
  }
  if (ops[0].atom != DW_OP_call_frame_cfa) return false;
  size_t i = 1;
  int64_t offset = 0;
  if (i < nops && ops[i].atom == DW_OP_plus_uconst) {
    offset = static_cast<int64_t>(ops[i].number);  // a negative offset, wrapped
    ++i;
  }
  if (i == nops) {
    rule->kind = RegRule::Kind::at_cfa_offset;
  } else if (i + 1 == nops && ops[i].atom == DW_OP_stack_value) {
    rule->kind = RegRule::Kind::cfa_offset;
  } else {
    return false;
  }
  rule->offset = offset;
  return true;
}

}  // namespace

bool read_cfi_rule(Dwarf_Frame* frame, unsigned regno, RegRule* rule) {
  return regno < kDwarfRegs && read_rule(frame, regno, rule);
}

bool read_cfi_cfa(Dwarf_Frame* frame, uint8_t* reg, int64_t* offset) {
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  // A register-plus-offset CFA is one DW_OP_bregx (libdw's execute_cfi).
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
      ops[0].number >= kDwarfRegs) {
    return false;
  }
  *reg = static_cast<uint8_t>(ops[0].number);
  *offset = static_cast<int64_t>(ops[0].number2);
  return true;
}

CfiRow read_cfi_row(Dwarf_Frame* frame) {
  CfiRow row;
  if (dwarf_frame_info(frame, nullptr, nullptr, nullptr) != static_cast<int>(kDwarfRip)) return row;
  if (!read_cfi_cfa(frame, &row.cfa_reg, &row.cfa_offset)) return row;
  for (unsigned n = 0; n < kDwarfRegs; ++n) {
    if (!read_rule(frame, n, &row.rules[n])) return row;
  }
  row.simple = true;
  return row;
}

}  // namespace usdt::record
