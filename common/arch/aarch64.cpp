#include "common/arch/aarch64.h"

#include <charconv>
#include <optional>

#include "common/arch/operand_text.h"
#include "common/hex_text.h"

namespace usdt::arm64 {
namespace {

using operand_text::parse_integer;
using operand_text::prefixed;
using operand_text::quoted;
using operand_text::trim;
using operand_text::undecodable;

struct Register {
  int16_t reg;
  uint8_t width;  // bytes the name denotes
};

std::optional<unsigned> register_number(std::string_view digits, unsigned max) {
  unsigned n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || n > max) {
    return std::nullopt;
  }
  return n;
}

// A general-purpose register name (not the zero registers).
std::optional<Register> lookup_register(std::string_view name) {
  if (name == "sp") return Register{arm64_reg::sp, 8};
  if (name == "fp") return Register{arm64_reg::fp, 8};
  if (name == "lr") return Register{arm64_reg::lr, 8};
  if (name.size() < 2 || (name[0] != 'x' && name[0] != 'w')) return std::nullopt;
  auto n = register_number(name.substr(1), 30);
  if (!n) return std::nullopt;
  return Register{static_cast<int16_t>(*n), static_cast<uint8_t>(name[0] == 'w' ? 4 : 8)};
}

// vN qN dN sN hN bN: the SIMD and floating-point registers.
std::optional<int16_t> lookup_vector(std::string_view name) {
  if (name.size() < 2 || std::string_view("vqdshb").find(name[0]) == std::string_view::npos) {
    return std::nullopt;
  }
  auto n = register_number(name.substr(1), 31);
  if (!n) return std::nullopt;
  return static_cast<int16_t>(arm64_reg::v0 + *n);
}

// "#:lo12:sym+8": the symbol and its offset.
bool parse_low12(std::string_view off, ArgSpec* spec) {
  constexpr std::string_view kLow12 = ":lo12:";
  if (off.substr(0, kLow12.size()) != kLow12) return false;
  if (!operand_text::parse_displacement(off.substr(kLow12.size()), spec)) return false;
  if (spec->symbol.empty()) return false;
  spec->symbol_low12 = true;
  return true;
}

// What follows the base inside "[base, ...]": an offset, a :lo12: symbol,
// or an index register with an optional "lsl #S".
ArgSpec parse_offset(ArgSpec spec, std::string_view rest, std::string_view op) {
  size_t comma = rest.find(',');
  std::string_view first = trim(rest.substr(0, comma));
  if (auto index = lookup_register(first)) {
    if (index->width != 8 || index->reg == arm64_reg::sp) {
      return undecodable(std::move(spec), "bad index register in " + quoted(op));
    }
    spec.index_reg = index->reg;
    if (comma == std::string_view::npos) return spec;
    std::string_view shift = trim(rest.substr(comma + 1));
    if (shift.substr(0, 4) != "lsl ") {
      return undecodable(std::move(spec), "unsupported index extension in " + quoted(op));
    }
    shift = trim(shift.substr(4));
    if (!shift.empty() && shift[0] == '#') shift.remove_prefix(1);
    auto s = parse_integer(shift);
    if (!s || *s < 0 || *s > 3) return undecodable(std::move(spec), "bad shift in " + quoted(op));
    spec.scale = static_cast<uint8_t>(1u << *s);
    return spec;
  }
  if (comma != std::string_view::npos) {
    return undecodable(std::move(spec), "too many address parts in " + quoted(op));
  }
  if (!first.empty() && first[0] == '#') first.remove_prefix(1);
  if (parse_low12(first, &spec)) return spec;
  auto d = parse_integer(first);
  if (!d) return undecodable(std::move(spec), "bad offset in " + quoted(op));
  spec.displacement = *d;
  return spec;
}

ArgSpec parse_memory(ArgSpec spec, std::string_view op) {
  if (op.back() != ']') return undecodable(std::move(spec), "unterminated '[' in " + quoted(op));
  std::string_view inside = trim(op.substr(1, op.size() - 2));
  size_t comma = inside.find(',');
  auto base = lookup_register(trim(inside.substr(0, comma)));
  if (!base || base->width != 8) {
    return undecodable(std::move(spec), "bad base register in " + quoted(op));
  }
  spec.reg = base->reg;
  if (comma != std::string_view::npos) {
    spec = parse_offset(std::move(spec), inside.substr(comma + 1), op);
    if (!spec.error.empty()) return spec;
  }
  spec.location = ArgLocation::memory;
  return spec;
}

std::string memory_operand(const ArgSpec& spec) {
  std::string s = prefixed("[", register_name(spec.reg));
  if (spec.index_reg != kNoReg) {
    s += prefixed(", ", register_name(spec.index_reg));
    if (spec.scale > 1) s += prefixed(", lsl #", __builtin_ctz(spec.scale));
  } else if (spec.symbol_low12) {
    s += ", #:lo12:" + spec.symbol;
    if (spec.displacement > 0) s += prefixed("+", spec.displacement);
    if (spec.displacement < 0) s += operand_text::signed_offset(spec.displacement);
  } else if (spec.displacement != 0) {
    s += ", " + operand_text::signed_offset(spec.displacement);
  }
  return s + "]";
}

}  // namespace

bool is_vector(int16_t reg) { return reg >= arm64_reg::v0 && reg < arm64_reg::v0 + 32; }

ArgSpec parse_operand(ArgSpec spec, std::string_view op) {
  if (op.empty()) return undecodable(std::move(spec), "empty operand");
  if (op[0] == '[') return parse_memory(std::move(spec), op);
  std::string_view imm = op[0] == '#' ? op.substr(1) : op;
  std::optional<int64_t> value = parse_integer(imm);
  if (op == "xzr" || op == "wzr") value = 0;
  if (value) {
    spec.location = ArgLocation::constant;
    spec.constant = operand_text::truncate_to_size(*value, spec.size, spec.is_signed);
    return spec;
  }
  std::optional<int16_t> reg;
  if (auto r = lookup_register(op)) reg = r->reg;
  if (!reg) reg = lookup_vector(op);
  if (!reg) return undecodable(std::move(spec), "unrecognized operand " + quoted(op));
  spec.location = ArgLocation::reg;
  spec.reg = *reg;
  return spec;
}

uint8_t sizeless_width(std::string_view operand) {
  if (operand == "wzr") return 4;
  auto r = lookup_register(operand);
  return r ? r->width : 8;
}

std::string describe_location(const ArgSpec& spec) {
  std::string type = operand_text::type_name(spec);
  switch (spec.location) {
    case ArgLocation::constant:
      return type + " constant " +
             (spec.is_signed ? std::to_string(spec.constant)
                             : std::to_string(static_cast<uint64_t>(spec.constant)));
    case ArgLocation::reg:
      if (spec.reg == arm64_reg::sp || is_vector(spec.reg)) {
        return type + " in " + register_name(spec.reg);
      }
      return type + " in " + (spec.size <= 4 ? "w" : "x") + std::to_string(spec.reg);
    case ArgLocation::memory: {
      std::string s = type + " at " + memory_operand(spec);
      if (spec.symbol_low12 && spec.symbol_resolved) {
        const uint64_t address = spec.symbol_address + static_cast<uint64_t>(spec.displacement);
        s += prefixed(" = ", register_name(spec.reg)) + " + " + hex(address & 0xfff);
      } else if (spec.symbol_low12 && !spec.error.empty()) {
        s += " (" + spec.error + ")";
      }
      return s;
    }
    case ArgLocation::undecodable:
      break;
  }
  return "undecodable: " + spec.error;
}

std::string register_name(int16_t reg) {
  if (reg >= 0 && reg <= 30) return prefixed("x", reg);
  if (reg == arm64_reg::sp) return "sp";
  if (reg == arm64_reg::pc) return "pc";
  if (is_vector(reg)) return prefixed("v", reg - arm64_reg::v0);
  return "?";
}

}  // namespace usdt::arm64
