#include "common/arg_spec.h"

#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <optional>

// Operand grammar (what GNU as prints for sys/sdt.h's "nor" constraints):
//   x86-64:  %reg | $imm | [disp|sym[+-off]](%base[,%index[,scale]]) | [disp](,%index,scale)
//   aarch64: xN | wN | sp | [reg] | [reg, [#]off] | [#]imm
// libbpf's src/usdt.c (parse_usdt_arg) and perf's arch/*/util/perf_regs.c accept
// the same forms; we decode more of them (scaled index, %ah, sym(%rip)).

#include "common/hex_text.h"

namespace usdt {
namespace {

struct X86Register {
  std::string_view name;
  int16_t reg;
  uint8_t width;  // bytes the name denotes
  uint8_t shift;  // 8 for %ah..%dh
};

// Every general-purpose (sub-)register name, with perf's register number.
constexpr X86Register kX86Registers[] = {
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

constexpr std::string_view kX86Names64[] = {"rax", "rbx", "rcx", "rdx", "rsi",
                                             "rdi", "rbp", "rsp", "rip"};
constexpr std::string_view kX86Names32[] = {"eax", "ebx", "ecx", "edx", "esi",
                                            "edi", "ebp", "esp", "eip"};
constexpr std::string_view kX86Names16[] = {"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip"};
constexpr std::string_view kX86Names8[] = {"al", "bl", "cl", "dl", "sil", "dil", "bpl", "spl", "ip"};

std::optional<X86Register> lookup_x86_register(std::string_view name) {
  for (const auto& r : kX86Registers) {
    if (r.name == name) return r;
  }
  // %r8..%r15 with optional d/w/b suffix.
  if (name.size() >= 2 && name[0] == 'r' && std::isdigit(static_cast<unsigned char>(name[1]))) {
    unsigned n = 0;
    auto [p, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), n);
    if (ec != std::errc() || n < 8 || n > 15) return std::nullopt;
    std::string_view suffix(p, name.data() + name.size() - p);
    uint8_t width = 0;
    if (suffix.empty()) width = 8;
    else if (suffix == "d") width = 4;
    else if (suffix == "w") width = 2;
    else if (suffix == "b") width = 1;
    else return std::nullopt;
    return X86Register{name, static_cast<int16_t>(x86_reg::r8 + (n - 8)), width, 0};
  }
  // %xmm0..%xmm15: floating-point arguments.
  if (name.size() > 3 && name.substr(0, 3) == "xmm") {
    unsigned n = 0;
    auto [p, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), n);
    if (ec != std::errc() || p != name.data() + name.size() || n > 15) return std::nullopt;
    return X86Register{name, static_cast<int16_t>(x86_reg::xmm0 + 2 * n), 16, 0};
  }
  return std::nullopt;
}

bool is_xmm(int16_t reg) { return reg >= x86_reg::xmm0 && reg < x86_reg::xmm0 + 32; }

// Parses a signed decimal or 0x-hex integer; the whole string must be used.
std::optional<int64_t> parse_integer(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  // Two's complement wrap is intended: "$0xffffffffffffffff" and "$-1" are the same bits.
  return static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
}

// Keeps the low `size` bytes, sign- or zero-extended: GCC 12 writes "4@$-1"
// for an unsigned int of value 0xffffffff.
int64_t truncate_to_size(int64_t value, uint8_t size, bool is_signed) {
  if (size >= 8) return value;
  unsigned bits = size * 8u;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t v = static_cast<uint64_t>(value) & mask;
  if (is_signed && (v >> (bits - 1)) != 0) v |= ~mask;
  return static_cast<int64_t>(v);
}

// "lit" + std::to_string(n) trips GCC 12's false -Wrestrict (PR 105651); append instead.
std::string prefixed(const char* prefix, std::string tail) {
  std::string s(prefix);
  s.append(tail);
  return s;
}
template <typename T>
std::string prefixed(const char* prefix, T value) {
  return prefixed(prefix, std::to_string(value));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_symbol_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

bool is_symbol_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '@';
}

// A displacement expression as GNU as prints it before "(": a sum of
// decimal or 0x-hex terms and at most one symbol, e.g. "-24", "-8+8",
// "8+-16", "16-8", "0x10+4", "sym+8", "sym-4", "40+CheckpointStats".
// SystemTap's tapsets.cxx accepts up to three such terms
// (sdt_uprobe_var_expanding_visitor::try_parse_arg_offset_register,
// "+-N+-N+-N"), and an offset on either side of the symbol
// (try_parse_arg_varname). Sets spec->displacement and spec->symbol; false
// when the text is not such a sum (an empty term, a second or negated
// symbol, a malformed number).
bool parse_displacement(std::string_view s, ArgSpec* spec) {
  int64_t sum = 0;
  std::string symbol;
  size_t i = 0;
  bool first = true;
  while (i < s.size() || first) {
    bool negative = false;
    size_t signs = 0;
    while (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      if (s[i] == '-') negative = !negative;
      ++i;
      ++signs;
    }
    if (!first && signs == 0) return false;  // two terms need an operator between them
    if (signs > 2) return false;
    if (i == s.size()) return first && signs == 0;  // "" is no displacement; "8+" is bad
    first = false;
    if (is_symbol_start(s[i])) {
      size_t end = i + 1;
      while (end < s.size() && is_symbol_char(s[end])) ++end;
      if (negative || !symbol.empty()) return false;
      symbol = std::string(s.substr(i, end - i));
      i = end;
      continue;
    }
    size_t end = i;
    while (end < s.size() && std::isalnum(static_cast<unsigned char>(s[end]))) ++end;
    auto v = parse_integer(s.substr(i, end - i));
    if (!v) return false;
    // Two's complement wrap, as the assembler computes it.
    uint64_t term = static_cast<uint64_t>(*v);
    sum = static_cast<int64_t>(negative ? static_cast<uint64_t>(sum) - term
                                        : static_cast<uint64_t>(sum) + term);
    i = end;
  }
  spec->displacement = sum;
  spec->symbol = std::move(symbol);
  return true;
}

ArgSpec fail(ArgSpec spec, std::string why) {
  spec.location = ArgLocation::undecodable;
  spec.error = std::move(why);
  return spec;
}

// "%rax" -> the register, or nullopt. Base and index registers must be 64-bit.
std::optional<X86Register> parse_address_register(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s[0] != '%') return std::nullopt;
  auto r = lookup_x86_register(s.substr(1));
  if (!r || r->width != 8 || r->shift != 0) return std::nullopt;
  return r;
}

ArgSpec parse_x86_operand(ArgSpec spec, std::string_view op) {
  if (op.empty()) return fail(std::move(spec), "empty operand");
  if (op[0] == '$') {
    auto v = parse_integer(op.substr(1));
    if (!v) return fail(std::move(spec), "bad constant '" + std::string(op) + "'");
    spec.location = ArgLocation::constant;
    spec.constant = truncate_to_size(*v, spec.size, spec.is_signed);
    return spec;
  }
  if (op[0] == '%') {
    auto r = lookup_x86_register(op.substr(1));
    if (!r) return fail(std::move(spec), "unknown register '" + std::string(op) + "'");
    spec.location = ArgLocation::reg;
    spec.reg = r->reg;
    spec.reg_shift = r->shift;
    return spec;
  }

  // Memory: [sym[+-off] | disp] ( [%base] [, %index [, scale]] )
  size_t open = op.find('(');
  if (open == std::string_view::npos) {
    // An absolute address: "0x20000000" is AT&T for the memory at that
    // address. (A bare symbol, which SystemTap's try_parse_arg_varname also
    // takes, is left undecodable: GCC writes "sym(%rip)" on x86-64.)
    if (!parse_displacement(op, &spec) || !spec.symbol.empty()) {
      spec.symbol.clear();
      spec.displacement = 0;
      return fail(std::move(spec), "unrecognized operand '" + std::string(op) + "'");
    }
    spec.location = ArgLocation::memory;
    return spec;
  }
  if (op.back() != ')') {
    return fail(std::move(spec), "unrecognized operand '" + std::string(op) + "'");
  }
  std::string_view prefix = op.substr(0, open);
  std::string_view inside = op.substr(open + 1, op.size() - open - 2);

  if (!parse_displacement(prefix, &spec)) {
    return fail(std::move(spec), "bad displacement in '" + std::string(op) + "'");
  }
  std::string_view parts[3];
  size_t count = 0;
  while (true) {
    size_t comma = inside.find(',');
    if (count == 3) return fail(std::move(spec), "too many address parts in '" + std::string(op) + "'");
    parts[count++] = inside.substr(0, comma);
    if (comma == std::string_view::npos) break;
    inside.remove_prefix(comma + 1);
  }
  if (!trim(parts[0]).empty()) {
    auto base = parse_address_register(parts[0]);
    if (!base) return fail(std::move(spec), "bad base register in '" + std::string(op) + "'");
    spec.reg = base->reg;
  }
  if (count >= 2) {
    auto index = parse_address_register(parts[1]);
    if (!index || index->reg == x86_reg::ip || index->reg == x86_reg::sp) {
      return fail(std::move(spec), "bad index register in '" + std::string(op) + "'");
    }
    spec.index_reg = index->reg;
    if (count == 3) {
      auto scale = parse_integer(trim(parts[2]));
      if (!scale || (*scale != 1 && *scale != 2 && *scale != 4 && *scale != 8)) {
        return fail(std::move(spec), "bad scale in '" + std::string(op) + "'");
      }
      spec.scale = static_cast<uint8_t>(*scale);
    }
  }
  if (spec.reg == kNoReg && spec.index_reg == kNoReg) {
    return fail(std::move(spec), "no register in '" + std::string(op) + "'");
  }
  if (spec.reg == x86_reg::ip && spec.index_reg != kNoReg) {
    return fail(std::move(spec), "%rip cannot be indexed in '" + std::string(op) + "'");
  }
  spec.location = ArgLocation::memory;
  return spec;
}

std::optional<int16_t> lookup_arm64_register(std::string_view name, uint8_t* width) {
  *width = 8;
  if (name == "sp") return arm64_reg::sp;
  if (name == "fp") return int16_t{29};
  if (name == "lr") return arm64_reg::lr;
  if (name.size() < 2 || (name[0] != 'x' && name[0] != 'w')) return std::nullopt;
  unsigned n = 0;
  auto [p, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), n);
  if (ec != std::errc() || p != name.data() + name.size() || n > 30) return std::nullopt;
  if (name[0] == 'w') *width = 4;
  return static_cast<int16_t>(n);
}

ArgSpec parse_arm64_operand(ArgSpec spec, std::string_view op) {
  if (op.empty()) return fail(std::move(spec), "empty operand");
  uint8_t width = 8;
  if (op[0] == '[') {
    if (op.back() != ']') return fail(std::move(spec), "unterminated '[' in '" + std::string(op) + "'");
    std::string_view inside = trim(op.substr(1, op.size() - 2));
    size_t comma = inside.find(',');
    auto base = lookup_arm64_register(trim(inside.substr(0, comma)), &width);
    if (!base || width != 8) return fail(std::move(spec), "bad base register in '" + std::string(op) + "'");
    spec.reg = *base;
    if (comma != std::string_view::npos) {
      std::string_view off = trim(inside.substr(comma + 1));
      if (!off.empty() && off[0] == '#') off.remove_prefix(1);
      auto d = parse_integer(off);
      if (!d) return fail(std::move(spec), "bad offset in '" + std::string(op) + "'");
      spec.displacement = *d;
    }
    spec.location = ArgLocation::memory;
    return spec;
  }
  std::string_view imm = op;
  if (imm[0] == '#') imm.remove_prefix(1);
  if (auto v = parse_integer(imm)) {
    spec.location = ArgLocation::constant;
    spec.constant = truncate_to_size(*v, spec.size, spec.is_signed);
    return spec;
  }
  auto reg = lookup_arm64_register(op, &width);
  if (!reg) return fail(std::move(spec), "unrecognized operand '" + std::string(op) + "'");
  spec.location = ArgLocation::reg;
  spec.reg = *reg;
  return spec;
}

std::string type_name(const ArgSpec& spec) {
  if (spec.is_float) return spec.size == 4 ? "float32" : spec.size == 8 ? "float64" : prefixed("float", spec.size * 8);
  return (spec.is_signed ? "int" : "uint") + std::to_string(spec.size * 8);
}

std::string signed_offset(int64_t v) {
  if (v < 0) return prefixed("-", 0 - static_cast<uint64_t>(v));
  return std::to_string(v);
}

// The sub-register that holds `size` bytes of reg, e.g. (ax, 4) -> "eax".
std::string x86_subregister_name(int16_t reg, uint8_t size) {
  if (reg >= x86_reg::r8 && reg < x86_reg::r8 + 8) {
    std::string base = prefixed("r", reg - x86_reg::r8 + 8);
    if (size == 4) return base + "d";
    if (size == 2) return base + "w";
    if (size == 1) return base + "b";
    return base;
  }
  if (reg >= 0 && reg <= x86_reg::ip) {
    if (size == 4) return std::string(kX86Names32[reg]);
    if (size == 2) return std::string(kX86Names16[reg]);
    if (size == 1) return std::string(kX86Names8[reg]);
    return std::string(kX86Names64[reg]);
  }
  return register_name(reg, Arch::x86_64);
}

std::string x86_memory_operand(const ArgSpec& spec) {
  if (spec.reg == kNoReg && spec.index_reg == kNoReg && spec.symbol.empty()) {
    return "absolute address " + hex(static_cast<uint64_t>(spec.displacement));
  }
  std::string s;
  if (!spec.symbol.empty()) {
    s = spec.symbol;
    if (spec.displacement > 0) s += prefixed("+", spec.displacement);
    if (spec.displacement < 0) s += signed_offset(spec.displacement);
  } else if (spec.displacement != 0) {
    s = signed_offset(spec.displacement);
  }
  s += "(";
  if (spec.reg != kNoReg) s += prefixed("%", register_name(spec.reg, Arch::x86_64));
  if (spec.index_reg != kNoReg) {
    s += prefixed(",%", register_name(spec.index_reg, Arch::x86_64)) + prefixed(",", spec.scale);
  }
  return s + ")";
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
  spec.size = 8;
  spec.is_signed = false;
  spec.implicit_size = true;
  if (arch == Arch::x86_64 && operand.size() > 1 && operand[0] == '%') {
    if (auto r = lookup_x86_register(operand.substr(1)); r && r->width < 8) {
      spec.size = r->width;
    }
  }
  if (arch == Arch::aarch64 && operand.size() > 1 && operand[0] == 'w') {
    uint8_t width = 8;
    if (lookup_arm64_register(operand, &width)) spec.size = width;
  }
  if (arch == Arch::aarch64) return parse_arm64_operand(std::move(spec), operand);
  return parse_x86_operand(std::move(spec), operand);
}

}  // namespace

ArgSpec parse_arg_spec(std::string_view text, Arch arch) {
  ArgSpec spec;
  spec.text = std::string(text);
  std::string_view s = trim(text);
  if (s.empty()) return fail(std::move(spec), "empty spec");
  size_t at = s.find('@');
  if (at == std::string_view::npos) return parse_sizeless(std::move(spec), s, arch);
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
    return fail(std::move(spec), "bad size '" + std::string(s.substr(0, at)) + "'");
  }
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    return fail(std::move(spec), prefixed("size ", size) + " is not 1, 2, 4 or 8");
  }
  spec.size = static_cast<uint8_t>(size);
  if (arch == Arch::aarch64) return parse_arm64_operand(std::move(spec), operand);
  return parse_x86_operand(std::move(spec), operand);
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

bool is_stack_relative(const ArgSpec& spec, Arch arch) {
  if (spec.location != ArgLocation::memory || !spec.symbol.empty()) return false;
  if (arch == Arch::x86_64) return spec.reg == x86_reg::sp || spec.reg == x86_reg::bp;
  return spec.reg == arm64_reg::sp || spec.reg == 29;
}

ArgSource arg_source(const ArgSpec& spec, Arch arch) {
  switch (spec.location) {
    case ArgLocation::constant:
      return ArgSource::constant;
    case ArgLocation::reg:
      if (arch == Arch::x86_64 && is_xmm(spec.reg)) return ArgSource::not_in_sample;
      return ArgSource::sampled_register;
    case ArgLocation::memory:
      if (spec.index_reg != kNoReg) return ArgSource::not_in_sample;
      return is_stack_relative(spec, arch) ? ArgSource::sampled_stack : ArgSource::not_in_sample;
    case ArgLocation::undecodable:
      break;
  }
  return ArgSource::not_in_sample;
}

namespace {

std::string describe_location(const ArgSpec& spec, Arch arch);

}  // namespace

std::string describe(const ArgSpec& spec, Arch arch) {
  std::string s = describe_location(spec, arch);
  if (spec.implicit_size && spec.location != ArgLocation::undecodable) {
    s += " (no size in the note: SystemTap's default)";
  }
  return s;
}

namespace {

std::string describe_location(const ArgSpec& spec, Arch arch) {
  if (spec.location == ArgLocation::undecodable) return "undecodable: " + spec.error;
  std::string type = type_name(spec);
  switch (spec.location) {
    case ArgLocation::constant:
      return type + " constant " +
             (spec.is_signed ? std::to_string(spec.constant)
                             : std::to_string(static_cast<uint64_t>(spec.constant)));
    case ArgLocation::reg:
      if (arch == Arch::aarch64) {
        if (spec.reg == arm64_reg::sp) return type + " in sp";
        return type + " in " + (spec.size <= 4 ? "w" : "x") + std::to_string(spec.reg);
      }
      if (is_xmm(spec.reg)) return type + prefixed(" in %", register_name(spec.reg, arch));
      if (spec.reg_shift == 8) {
        return type + prefixed(" in bits 8-15 of %", register_name(spec.reg, arch));
      }
      return type + prefixed(" in %", x86_subregister_name(spec.reg, spec.size));
    case ArgLocation::memory: {
      if (arch == Arch::aarch64) {
        std::string s = type + prefixed(" at [", register_name(spec.reg, arch));
        if (spec.displacement != 0) s += ", " + signed_offset(spec.displacement);
        return s + "]";
      }
      std::string s = type + " at " + x86_memory_operand(spec);
      if (!spec.symbol.empty()) {
        if (spec.symbol_resolved) {
          s += " = " + hex(spec.symbol_address + static_cast<uint64_t>(spec.displacement));
        } else if (!spec.error.empty()) {
          s += " (" + spec.error + ")";
        }
      }
      return s;
    }
    case ArgLocation::undecodable:
      break;
  }
  return "undecodable";
}

}  // namespace

std::string register_name(int16_t reg, Arch arch) {
  if (arch == Arch::aarch64) {
    if (reg >= 0 && reg <= 30) return prefixed("x", reg);
    if (reg == arm64_reg::sp) return "sp";
    if (reg == arm64_reg::pc) return "pc";
    return "?";
  }
  if (reg >= 0 && reg <= x86_reg::ip) return std::string(kX86Names64[reg]);
  if (reg >= x86_reg::r8 && reg < x86_reg::r8 + 8) return prefixed("r", reg - x86_reg::r8 + 8);
  if (is_xmm(reg) && (reg - x86_reg::xmm0) % 2 == 0) {
    return prefixed("xmm", (reg - x86_reg::xmm0) / 2);
  }
  return "?";
}

}  // namespace usdt
