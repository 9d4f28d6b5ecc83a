// aarch64 operands of USDT argument specs, as GNU as prints them for
// sys/sdt.h's "nor" constraints:
//
//   xN, wN (N 0..30), sp, fp, lr   a register; wN is its low 32 bits
//   xzr, wzr                       the zero register: the constant 0
//   vN qN dN sN hN bN              a SIMD/floating-point register (no uprobe
//                                  sample holds them)
//   [#]imm                         a constant
//   [base], [base, [#]off]         memory at a 64-bit base plus an offset
//   [base, #:lo12:sym[+off]]       the base (a page, from adrp) plus the low
//                                  12 bits of a symbol's address
//   [base, xM[, lsl #S]]           plus an index register shifted left by S
//
// libbpf's src/usdt.c (the aarch64 parse_usdt_arg) accepts the register,
// [base], [base, off] and constant forms.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/arg_spec.h"

namespace usdt::arm64 {

// Parses OPERAND, the text after "SIZE@", into spec (its size and sign set).
// Never fails: a bad operand yields an undecodable spec with the reason.
ArgSpec parse_operand(ArgSpec spec, std::string_view operand);

// The width in bytes that a size-less operand denotes: 4 for wN, else 8.
uint8_t sizeless_width(std::string_view operand);

// The decoded form for `-l -v`: "int32 in w3", "int32 at [sp, 8]".
std::string describe_location(const ArgSpec& spec);

// "x0", "sp", "v3"; "?" for numbers that name no register.
std::string register_name(int16_t reg);

bool is_vector(int16_t reg);

}  // namespace usdt::arm64
