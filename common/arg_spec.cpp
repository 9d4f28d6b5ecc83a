#include "common/arg_spec.h"

#include <cctype>
#include <charconv>

#include "common/arch/aarch64.h"
#include "common/arch/operand_text.h"
#include "common/arch/x86_64.h"

namespace usdt {
namespace {

using operand_text::prefixed;
using operand_text::trim;
using operand_text::undecodable;

ArgSpec parse_operand(ArgSpec spec, std::string_view operand, Arch arch) {
  if (arch == Arch::aarch64) return arm64::parse_operand(std::move(spec), operand);
  return x86::parse_operand(std::move(spec), operand);
}

// The size-less form ("%rdi", "-4(%rbp)", "$5"): notes written by hand with
// STAP_PROBE_ASM, and old sys/sdt.h versions, give no "N@". We follow
// SystemTap (tapsets.cxx): sdt_uprobe_var_expanding_visitor::
// parse_out_arg_precision gives an argument without '@' in a .note.stapsdt
// (version 3, uprobe3_type) note the precision sizeof(long), positive, i.e.
// 8 bytes unsigned on a 64-bit target ("V3 asm does not have precision field
// so default to unsigned long"; only the older .probes formats V1/V2 got
// -sizeof(long), signed). With that precision, try_parse_arg_register masks a
// sub-register to its width without sign extension ("%eax" -> rax & 0xffffffff,
// "%ah" -> (rax >> 8) & 0xff, "%ax" -> & 0xffff), memory is read with
// user_int64 (8 bytes; precision_to_function(8)), and a literal is read as
// uint64. sdt_v3_tokenize (PR13934) then splits the argument string on spaces.
// Here: size 8 unsigned, except that a sub-register gets its own width, unsigned,
// which yields the same zero-extended value.
ArgSpec parse_sizeless(ArgSpec spec, std::string_view operand, Arch arch) {
  spec.is_signed = false;
  spec.implicit_size = true;
  spec.size = arch == Arch::aarch64 ? arm64::sizeless_width(operand) : x86::sizeless_width(operand);
  return parse_operand(std::move(spec), operand, arch);
}

std::string describe_location(const ArgSpec& spec, Arch arch) {
  if (spec.location == ArgLocation::undecodable) return "undecodable: " + spec.error;
  if (arch == Arch::aarch64) return arm64::describe_location(spec);
  return x86::describe_location(spec);
}

// An x86-64 address that adds a register to the symbol (%rip aside, which
// only says "the symbol"). aarch64 names symbols only as :lo12: offsets.
bool adds_register(const ArgSpec& spec) {
  return (spec.reg != kNoReg && spec.reg != x86_reg::ip) || spec.index_reg != kNoReg;
}

// "8", "-4", "8f", "-8f": what may stand before the '@' of a sized spec.
bool is_size_prefix(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (!s.empty() && s.back() == 'f') s.remove_suffix(1);
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

ArgSpec parse_arg_spec(std::string_view text, Arch arch) {
  ArgSpec spec;
  spec.text = std::string(text);
  std::string_view s = trim(text);
  if (s.empty()) return undecodable(std::move(spec), "empty spec");
  size_t at = s.find('@');
  // '@' also joins a symbol and its relocation operator ("%fs:tv@tpoff").
  if (at == std::string_view::npos || !is_size_prefix(s.substr(0, at))) {
    return parse_sizeless(std::move(spec), s, arch);
  }
  std::string_view size_part = s.substr(0, at);
  std::string_view operand = trim(s.substr(at + 1));
  if (!size_part.empty() && size_part[0] == '-') {
    spec.is_signed = true;
    size_part.remove_prefix(1);
  }
  if (!size_part.empty() && size_part.back() == 'f') {
    spec.is_float = true;
    size_part.remove_suffix(1);
  }
  unsigned size = 0;
  auto [p, ec] = std::from_chars(size_part.data(), size_part.data() + size_part.size(), size);
  if (size_part.empty() || ec != std::errc() || p != size_part.data() + size_part.size()) {
    return undecodable(std::move(spec), "bad size '" + std::string(s.substr(0, at)) + "'");
  }
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    return undecodable(std::move(spec), prefixed("size ", size) + " is not 1, 2, 4 or 8");
  }
  spec.size = static_cast<uint8_t>(size);
  return parse_operand(std::move(spec), operand, arch);
}

std::vector<ArgSpec> parse_arg_specs(std::string_view args, Arch arch) {
  std::vector<ArgSpec> specs;
  size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    if (i == args.size()) break;
    size_t start = i;
    // aarch64 memory operands contain a space ("[sp, 8]"): stay inside brackets.
    int depth = 0;
    while (i < args.size() && (depth > 0 || !std::isspace(static_cast<unsigned char>(args[i])))) {
      if (args[i] == '[') ++depth;
      if (args[i] == ']' && depth > 0) --depth;
      ++i;
    }
    specs.push_back(parse_arg_spec(args.substr(start, i - start), arch));
  }
  return specs;
}

void resolve_symbol(ArgSpec& spec, uint64_t address, bool fixed_file) {
  spec.symbol_resolved = true;
  spec.symbol_address = address;
  spec.symbol_fixed = fixed_file;
  spec.error.clear();
  if (spec.location == ArgLocation::constant && fixed_file) {
    const uint64_t value = address + static_cast<uint64_t>(spec.displacement);
    spec.constant =
        operand_text::truncate_to_size(static_cast<int64_t>(value), spec.size, spec.is_signed);
  }
}

bool needs_load_bias(const ArgSpec& spec) {
  if (spec.symbol.empty() || spec.symbol_fixed || spec.symbol_low12) return false;
  if (spec.location == ArgLocation::constant) return true;
  return spec.location == ArgLocation::memory && adds_register(spec);
}

bool is_stack_relative(const ArgSpec& spec, Arch arch) {
  if (spec.location != ArgLocation::memory || !spec.symbol.empty() || !spec.segment.empty()) {
    return false;
  }
  if (arch == Arch::x86_64) return spec.reg == x86_reg::sp || spec.reg == x86_reg::bp;
  return spec.reg == arm64_reg::sp || spec.reg == arm64_reg::fp;
}

bool is_vector_register(const ArgSpec& spec, Arch arch) {
  if (spec.location != ArgLocation::reg) return false;
  return arch == Arch::aarch64 ? arm64::is_vector(spec.reg) : x86::is_xmm(spec.reg);
}

ArgSource arg_source(const ArgSpec& spec, Arch arch) {
  switch (spec.location) {
    case ArgLocation::constant:
      return spec.symbol.empty() || (spec.symbol_resolved && spec.symbol_fixed)
                 ? ArgSource::constant
                 : ArgSource::not_in_sample;
    case ArgLocation::reg:
      return is_vector_register(spec, arch) ? ArgSource::not_in_sample
                                            : ArgSource::sampled_register;
    case ArgLocation::memory:
      if (spec.index_reg != kNoReg) return ArgSource::not_in_sample;
      return is_stack_relative(spec, arch) ? ArgSource::sampled_stack : ArgSource::not_in_sample;
    case ArgLocation::undecodable:
      break;
  }
  return ArgSource::not_in_sample;
}

std::string describe(const ArgSpec& spec, Arch arch) {
  std::string s = describe_location(spec, arch);
  if (spec.implicit_size && spec.location != ArgLocation::undecodable) {
    s += " (no size in the note: SystemTap's default)";
  }
  return s;
}

std::string register_name(int16_t reg, Arch arch) {
  return arch == Arch::aarch64 ? arm64::register_name(reg) : x86::register_name(reg);
}

}  // namespace usdt
