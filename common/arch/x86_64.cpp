#include "common/arch/x86_64.h"

#include <charconv>
#include <optional>

#include "common/arch/operand_text.h"
#include "common/hex_text.h"

namespace usdt::x86 {
namespace {

using operand_text::parse_displacement;
using operand_text::parse_integer;
using operand_text::prefixed;
using operand_text::quoted;
using operand_text::trim;
using operand_text::undecodable;

struct Register {
  std::string_view name;
  int16_t reg;
  uint8_t width;  // bytes the name denotes
  uint8_t shift;  // 8 for %ah..%dh
};

// Every general-purpose (sub-)register name below %r8, with perf's number.
constexpr Register kRegisters[] = {
    {"rax", x86_reg::ax, 8, 0}, {"eax", x86_reg::ax, 4, 0}, {"ax", x86_reg::ax, 2, 0},
    {"al", x86_reg::ax, 1, 0},  {"ah", x86_reg::ax, 1, 8},  {"rbx", x86_reg::bx, 8, 0},
    {"ebx", x86_reg::bx, 4, 0}, {"bx", x86_reg::bx, 2, 0},  {"bl", x86_reg::bx, 1, 0},
    {"bh", x86_reg::bx, 1, 8},  {"rcx", x86_reg::cx, 8, 0}, {"ecx", x86_reg::cx, 4, 0},
    {"cx", x86_reg::cx, 2, 0},  {"cl", x86_reg::cx, 1, 0},  {"ch", x86_reg::cx, 1, 8},
    {"rdx", x86_reg::dx, 8, 0}, {"edx", x86_reg::dx, 4, 0}, {"dx", x86_reg::dx, 2, 0},
    {"dl", x86_reg::dx, 1, 0},  {"dh", x86_reg::dx, 1, 8},  {"rsi", x86_reg::si, 8, 0},
    {"esi", x86_reg::si, 4, 0}, {"si", x86_reg::si, 2, 0},  {"sil", x86_reg::si, 1, 0},
    {"rdi", x86_reg::di, 8, 0}, {"edi", x86_reg::di, 4, 0}, {"di", x86_reg::di, 2, 0},
    {"dil", x86_reg::di, 1, 0}, {"rbp", x86_reg::bp, 8, 0}, {"ebp", x86_reg::bp, 4, 0},
    {"bp", x86_reg::bp, 2, 0},  {"bpl", x86_reg::bp, 1, 0}, {"rsp", x86_reg::sp, 8, 0},
    {"esp", x86_reg::sp, 4, 0}, {"sp", x86_reg::sp, 2, 0},  {"spl", x86_reg::sp, 1, 0},
    {"rip", x86_reg::ip, 8, 0},
};

constexpr std::string_view kNames64[] = {"rax", "rbx", "rcx", "rdx", "rsi",
                                         "rdi", "rbp", "rsp", "rip"};
constexpr std::string_view kNames32[] = {"eax", "ebx", "ecx", "edx", "esi",
                                         "edi", "ebp", "esp", "eip"};
constexpr std::string_view kNames16[] = {"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip"};
constexpr std::string_view kNames8[] = {"al", "bl", "cl", "dl", "sil", "dil", "bpl", "spl", "ip"};

// "r8".."r15" with an optional d/w/b suffix, or "xmm0".."xmm15".
std::optional<Register> lookup_numbered(std::string_view name) {
  const bool xmm = name.substr(0, 3) == "xmm";
  const size_t digits = xmm ? 3 : 1;
  if (name.size() <= digits || (!xmm && name[0] != 'r')) return std::nullopt;
  unsigned n = 0;
  auto [p, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), n);
  if (ec != std::errc()) return std::nullopt;
  std::string_view suffix(p, static_cast<size_t>(name.data() + name.size() - p));
  if (xmm) {
    if (!suffix.empty() || n > 15) return std::nullopt;
    return Register{name, static_cast<int16_t>(x86_reg::xmm0 + 2 * n), 16, 0};
  }
  if (n < 8 || n > 15) return std::nullopt;
  uint8_t width = 0;
  if (suffix.empty())
    width = 8;
  else if (suffix == "d")
    width = 4;
  else if (suffix == "w")
    width = 2;
  else if (suffix == "b")
    width = 1;
  else
    return std::nullopt;
  return Register{name, static_cast<int16_t>(x86_reg::r8 + (n - 8)), width, 0};
}

std::optional<Register> lookup_register(std::string_view name) {
  for (const auto& r : kRegisters) {
    if (r.name == name) return r;
  }
  return lookup_numbered(name);
}

// "%rax" -> the register, or nullopt. Base and index registers must be 64-bit.
std::optional<Register> parse_address_register(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s[0] != '%') return std::nullopt;
  auto r = lookup_register(s.substr(1));
  if (!r || r->width != 8 || r->shift != 0 || is_xmm(r->reg)) return std::nullopt;
  return r;
}

// "$42", "$-5", "$sym", "$sym+8": a symbol's address is a constant only once
// resolve_symbol() knows where the file is loaded.
ArgSpec parse_immediate(ArgSpec spec, std::string_view op) {
  std::string_view value = op.substr(1);
  if (auto v = parse_integer(value)) {
    spec.location = ArgLocation::constant;
    spec.constant = operand_text::truncate_to_size(*v, spec.size, spec.is_signed);
    return spec;
  }
  if (value.empty() || !parse_displacement(value, &spec) || spec.symbol.empty()) {
    spec.symbol.clear();
    spec.displacement = 0;
    return undecodable(std::move(spec), "bad constant " + quoted(op));
  }
  spec.location = ArgLocation::constant;  // its value once resolved
  return spec;
}

ArgSpec parse_register(ArgSpec spec, std::string_view op) {
  auto r = lookup_register(op.substr(1));
  if (!r) return undecodable(std::move(spec), "unknown register " + quoted(op));
  spec.location = ArgLocation::reg;
  spec.reg = r->reg;
  spec.reg_shift = r->shift;
  return spec;
}

// The "%base,%index,scale" inside the parentheses of a memory operand.
ArgSpec parse_address_registers(ArgSpec spec, std::string_view inside, std::string_view op) {
  std::string_view parts[3];
  size_t count = 0;
  while (true) {
    if (count == 3) return undecodable(std::move(spec), "too many address parts in " + quoted(op));
    size_t comma = inside.find(',');
    parts[count++] = inside.substr(0, comma);
    if (comma == std::string_view::npos) break;
    inside.remove_prefix(comma + 1);
  }
  if (!trim(parts[0]).empty()) {
    auto base = parse_address_register(parts[0]);
    if (!base) return undecodable(std::move(spec), "bad base register in " + quoted(op));
    spec.reg = base->reg;
  }
  if (count >= 2) {
    auto index = parse_address_register(parts[1]);
    if (!index || index->reg == x86_reg::ip || index->reg == x86_reg::sp) {
      return undecodable(std::move(spec), "bad index register in " + quoted(op));
    }
    spec.index_reg = index->reg;
  }
  if (count == 3) {
    auto scale = parse_integer(trim(parts[2]));
    if (!scale || (*scale != 1 && *scale != 2 && *scale != 4 && *scale != 8)) {
      return undecodable(std::move(spec), "bad scale in " + quoted(op));
    }
    spec.scale = static_cast<uint8_t>(*scale);
  }
  if (spec.reg == kNoReg && spec.index_reg == kNoReg) {
    return undecodable(std::move(spec), "no register in " + quoted(op));
  }
  if (spec.reg == x86_reg::ip && spec.index_reg != kNoReg) {
    return undecodable(std::move(spec), "%rip cannot be indexed in " + quoted(op));
  }
  // "disp(,%idx,1)" is the address "disp(%idx)": one register, no scaling.
  if (spec.reg == kNoReg && spec.scale == 1) {
    spec.reg = spec.index_reg;
    spec.index_reg = kNoReg;
  }
  spec.location = ArgLocation::memory;
  return spec;
}

// [sym[+-off] | disp] ( [%base] [, %index [, scale]] ), or an absolute
// address or symbol without parentheses (SystemTap's try_parse_arg_varname
// takes a bare symbol too).
ArgSpec parse_memory(ArgSpec spec, std::string_view op, std::string_view whole) {
  size_t open = op.find('(');
  if (open == std::string_view::npos) {
    if (op.empty() || !parse_displacement(op, &spec)) {
      spec.symbol.clear();
      spec.displacement = 0;
      return undecodable(std::move(spec), "unrecognized operand " + quoted(whole));
    }
    spec.location = ArgLocation::memory;
    return spec;
  }
  if (op.back() != ')')
    return undecodable(std::move(spec), "unrecognized operand " + quoted(whole));
  if (!parse_displacement(op.substr(0, open), &spec)) {
    return undecodable(std::move(spec), "bad displacement in " + quoted(whole));
  }
  return parse_address_registers(std::move(spec), op.substr(open + 1, op.size() - open - 2), whole);
}

// "%fs:tv@tpoff", "%gs:0x28", "%ds:8(%rax)".
ArgSpec parse_segment(ArgSpec spec, std::string_view op) {
  size_t colon = op.find(':');
  std::string_view segment = op.substr(1, colon - 1);
  std::string_view rest = op.substr(colon + 1);
  const bool thread_base = segment == "fs" || segment == "gs";
  const bool flat = segment == "ds" || segment == "es" || segment == "ss" || segment == "cs";
  if (!thread_base && !flat)
    return undecodable(std::move(spec), "unknown segment in " + quoted(op));
  if (rest.empty() || rest[0] == '%' || rest[0] == '$') {
    return undecodable(std::move(spec), "no memory operand after the segment in " + quoted(op));
  }
  spec = parse_memory(std::move(spec), rest, op);
  if (thread_base && spec.location == ArgLocation::memory) spec.segment = std::string(segment);
  return spec;
}

// The sub-register that holds `size` bytes of reg, e.g. (ax, 4) -> "eax".
std::string subregister_name(int16_t reg, uint8_t size) {
  if (reg >= x86_reg::r8 && reg < x86_reg::r8 + 8) {
    std::string base = prefixed("r", reg - x86_reg::r8 + 8);
    if (size == 4) return base + "d";
    if (size == 2) return base + "w";
    if (size == 1) return base + "b";
    return base;
  }
  if (reg >= 0 && reg <= x86_reg::ip) {
    if (size == 4) return std::string(kNames32[reg]);
    if (size == 2) return std::string(kNames16[reg]);
    if (size == 1) return std::string(kNames8[reg]);
    return std::string(kNames64[reg]);
  }
  return register_name(reg);
}

std::string symbol_plus(const std::string& symbol, int64_t offset) {
  if (offset > 0) return symbol + prefixed("+", offset);
  if (offset < 0) return symbol + operand_text::signed_offset(offset);
  return symbol;
}

// The operand in a canonical AT&T form: "ho_recs+4(%rax)", "-8(%rbp,%rcx,8)".
std::string memory_operand(const ArgSpec& spec) {
  std::string s = spec.segment.empty() ? "" : prefixed("%", spec.segment) + ":";
  const bool registers = spec.reg != kNoReg || spec.index_reg != kNoReg;
  if (!spec.symbol.empty()) {
    s += symbol_plus(spec.symbol, spec.displacement);
  } else if (!registers) {
    const std::string address = hex(static_cast<uint64_t>(spec.displacement));
    return spec.segment.empty() ? "absolute address " + address : s + address;
  } else if (spec.displacement != 0) {
    s += operand_text::signed_offset(spec.displacement);
  }
  if (!registers) return s;
  s += "(";
  if (spec.reg != kNoReg) s += prefixed("%", register_name(spec.reg));
  if (spec.index_reg != kNoReg) {
    s += prefixed(",%", register_name(spec.index_reg)) + prefixed(",", spec.scale);
  }
  return s + ")";
}

// " = 0x404080 + %rax": the address with the symbol's link-time address
// written out; " (WHY)" for an unresolved symbol.
std::string symbol_address_text(const ArgSpec& spec) {
  if (!spec.symbol_resolved) return spec.error.empty() ? "" : " (" + spec.error + ")";
  std::string s = " = " + hex(spec.symbol_address + static_cast<uint64_t>(spec.displacement));
  if (spec.reg != kNoReg && spec.reg != x86_reg::ip) s += prefixed(" + %", register_name(spec.reg));
  if (spec.index_reg != kNoReg) {
    s += prefixed(" + %", register_name(spec.index_reg)) + prefixed("*", spec.scale);
  }
  return s;
}

// "uint64 constant 4210824 (the address of sym+8)"; before the load bias is
// known, "uint64 constant: the address of sym+8, 0x4088 plus the load bias".
std::string describe_constant(const ArgSpec& spec, const std::string& type) {
  const std::string value = spec.is_signed ? std::to_string(spec.constant)
                                           : std::to_string(static_cast<uint64_t>(spec.constant));
  if (spec.symbol.empty()) return type + " constant " + value;
  if (spec.symbol_resolved && spec.symbol_fixed) {
    return type + " constant " + value + " (the address of " +
           symbol_plus(spec.symbol, spec.displacement) + ")";
  }
  std::string s = type + " constant: the address of " + symbol_plus(spec.symbol, spec.displacement);
  if (spec.symbol_resolved) {
    s += ", " + hex(spec.symbol_address + static_cast<uint64_t>(spec.displacement)) +
         " plus the load bias";
  } else if (!spec.error.empty()) {
    s += " (" + spec.error + ")";
  }
  return s;
}

}  // namespace

bool is_xmm(int16_t reg) { return reg >= x86_reg::xmm0 && reg < x86_reg::xmm0 + 32; }

ArgSpec parse_operand(ArgSpec spec, std::string_view op) {
  if (op.empty()) return undecodable(std::move(spec), "empty operand");
  if (op[0] == '$') return parse_immediate(std::move(spec), op);
  if (op[0] == '%' && op.find(':') != std::string_view::npos) {
    return parse_segment(std::move(spec), op);
  }
  if (op[0] == '%') return parse_register(std::move(spec), op);
  return parse_memory(std::move(spec), op, op);
}

uint8_t sizeless_width(std::string_view operand) {
  if (operand.size() < 2 || operand[0] != '%') return 8;
  auto r = lookup_register(operand.substr(1));
  return r && r->width < 8 ? r->width : 8;
}

std::string describe_location(const ArgSpec& spec) {
  std::string type = operand_text::type_name(spec);
  switch (spec.location) {
    case ArgLocation::constant:
      return describe_constant(spec, type);
    case ArgLocation::reg:
      if (is_xmm(spec.reg)) return type + prefixed(" in %", register_name(spec.reg));
      if (spec.reg_shift == 8)
        return type + prefixed(" in bits 8-15 of %", register_name(spec.reg));
      return type + prefixed(" in %", subregister_name(spec.reg, spec.size));
    case ArgLocation::memory: {
      std::string s = type + " at " + memory_operand(spec);
      if (!spec.symbol.empty() && spec.segment.empty()) s += symbol_address_text(spec);
      return s;
    }
    case ArgLocation::undecodable:
      break;
  }
  return "undecodable: " + spec.error;
}

std::string register_name(int16_t reg) {
  if (reg >= 0 && reg <= x86_reg::ip) return std::string(kNames64[reg]);
  if (reg >= x86_reg::r8 && reg < x86_reg::r8 + 8) return prefixed("r", reg - x86_reg::r8 + 8);
  if (is_xmm(reg) && (reg - x86_reg::xmm0) % 2 == 0) {
    return prefixed("xmm", (reg - x86_reg::xmm0) / 2);
  }
  return "?";
}

}  // namespace usdt::x86
