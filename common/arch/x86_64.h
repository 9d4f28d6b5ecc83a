// x86-64 operands of USDT argument specs, in AT&T syntax as GNU as prints
// them for sys/sdt.h's "nor" constraints (and for "m" and "x" in notes written
// by hand):
//
//   %reg                 a register or sub-register: %rax %eax %ax %al %ah,
//                        %r8 %r8d %r8w %r8b, %xmm0..%xmm15
//   $imm, $sym[+off]     a constant; the address of a symbol
//   disp(%base)          memory; disp is a sum such as -8+16 or sym+4
//   disp(%base,%idx[,s]) with an index register times a scale of 1, 2, 4, 8
//   disp(,%idx,s)        an index without a base (GCC's sym(,%rdi,8))
//   sym(%rip)            a symbol of the file, addressed from %rip
//   disp, sym[+off]      an absolute address; a symbol alone
//   %fs:mem, %gs:mem     relative to the thread's segment base (TLS, e.g.
//                        GCC's %fs:tv@tpoff); %ds: %es: %ss: %cs: are flat
//
// libbpf's src/usdt.c (parse_usdt_arg) and perf's arch/x86/util/perf_regs.c
// accept a subset of these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/arg_spec.h"

namespace usdt::x86 {

// Parses OPERAND, the text after "SIZE@", into spec (its size and sign set).
// Never fails: a bad operand yields an undecodable spec with the reason.
ArgSpec parse_operand(ArgSpec spec, std::string_view operand);

// The width in bytes that a size-less operand denotes: a sub-register's own
// ("%eax" 4, "%ah" 1), 8 for everything else.
uint8_t sizeless_width(std::string_view operand);

// The decoded form for `-l -v`: "int32 in %eax", "uint8 in bits 8-15 of %rax",
// "int32 at ho_recs(%rax) = 0x404080 + %rax".
std::string describe_location(const ArgSpec& spec);

// "rax", "r15", "xmm3"; "?" for numbers that name no register.
std::string register_name(int16_t reg);

bool is_xmm(int16_t reg);

}  // namespace usdt::x86
