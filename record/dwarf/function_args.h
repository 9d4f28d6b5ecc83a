// Where a function's parameters are at its entry instruction, and its
// return value at the return, by the System V x86-64 ABI (psABI 3.2.3):
// not DW_AT_location, which describes the body after the prologue, but the
// calling convention, which alone holds at the first instruction.
//
// INTEGER-class values take %rdi %rsi %rdx %rcx %r8 %r9 in order; SSE ones
// %xmm0-7, which no uprobe sample holds (recorded as missing); a struct of
// at most 16 bytes takes its eightbytes' registers if enough of both kinds
// are left, else goes wholly to the stack; larger ones are copied to the
// stack; a MEMORY-class return value adds a hidden pointer in %rdi first.
// Stack arguments lie from 8(%rsp) up (after the return address), each
// rounded up to 8 bytes and aligned to 16 when its type is. Values in
// registers or on the stack are read exactly; aggregates are missing, but
// take their registers so that later parameters stay right. After a
// parameter the ABI rules here cannot place, every later one is missing.
#pragma once

#include <string>
#include <vector>

#include "common/arg_spec.h"
#include "record/dwarf/function_signature.h"

namespace usdt::record {

struct FunctionArg {
  std::string name;         // the parameter's name; "argN" when DWARF has none
  std::string type;         // as C writes it
  bool is_pointer = false;  // a pointer (or reference): --string may read through it
  // How to read it at the hit. A value that cannot be read has location
  // undecodable (or an %xmm register) and the reason in spec.error.
  ArgSpec spec;
};

// The parameters at the function's entry, in declaration order.
std::vector<FunctionArg> entry_args(const FunctionSignature& sig);

// The return value at the return: none for void, %rax for integers and
// pointers, missing for floats and structs.
std::vector<FunctionArg> return_args(const FunctionSignature& sig);

}  // namespace usdt::record
