// The pieces of operand text both architectures' grammars share: integers as
// GNU as prints them, displacement sums with at most one symbol, sizes and
// signs, and the wording of descriptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/arg_spec.h"

namespace usdt::operand_text {

// A signed decimal or 0x-hex integer; the whole string must be used. Wraps
// as two's complement: "0xffffffffffffffff" and "-1" are the same bits.
std::optional<int64_t> parse_integer(std::string_view s);

// Keeps the low `size` bytes, sign- or zero-extended: GCC 12 writes "4@$-1"
// for an unsigned int of value 0xffffffff.
int64_t truncate_to_size(int64_t value, uint8_t size, bool is_signed);

std::string_view trim(std::string_view s);

// A sum of decimal or 0x-hex terms and at most one symbol, e.g. "-24",
// "-8+8", "8+-16", "sym+8", "sym-4", "40+CheckpointStats", "tv@tpoff".
// SystemTap's tapsets.cxx accepts up to three such terms
// (sdt_uprobe_var_expanding_visitor::try_parse_arg_offset_register,
// "+-N+-N+-N"), and an offset on either side of the symbol
// (try_parse_arg_varname). Sets spec->displacement and spec->symbol; false
// when the text is not such a sum (an empty term, a second or negated
// symbol, a malformed number). "" is a displacement of 0.
bool parse_displacement(std::string_view s, ArgSpec* spec);

// spec as undecodable, with the reason.
ArgSpec undecodable(ArgSpec spec, std::string why);

// "int32", "uint8", "float64".
std::string type_name(const ArgSpec& spec);

// "-8", "16".
std::string signed_offset(int64_t v);

// "'%foo'", for messages.
std::string quoted(std::string_view text);

// "lit" + std::to_string(n) trips GCC 12's false -Wrestrict (PR 105651):
// these append instead.
std::string prefixed(const char* prefix, std::string_view tail);
std::string prefixed(const char* prefix, int64_t value);

}  // namespace usdt::operand_text
