#include "common/arch/operand_text.h"

#include <cctype>
#include <charconv>

namespace usdt::operand_text {
namespace {

bool is_symbol_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// '@' is part of a name as GNU as prints relocation operators ("tv@tpoff").
bool is_symbol_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '@';
}

}  // namespace

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
  return static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
}

int64_t truncate_to_size(int64_t value, uint8_t size, bool is_signed) {
  if (size >= 8) return value;
  unsigned bits = size * 8u;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t v = static_cast<uint64_t>(value) & mask;
  if (is_signed && (v >> (bits - 1)) != 0) v |= ~mask;
  return static_cast<int64_t>(v);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

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

ArgSpec undecodable(ArgSpec spec, std::string why) {
  spec.location = ArgLocation::undecodable;
  spec.error = std::move(why);
  return spec;
}

std::string type_name(const ArgSpec& spec) {
  if (spec.is_float) {
    if (spec.size == 4) return "float32";
    if (spec.size == 8) return "float64";
    return prefixed("float", spec.size * 8);
  }
  return prefixed(spec.is_signed ? "int" : "uint", spec.size * 8);
}

std::string signed_offset(int64_t v) {
  if (v < 0) return prefixed("-", std::to_string(0 - static_cast<uint64_t>(v)));
  return std::to_string(v);
}

std::string quoted(std::string_view text) {
  std::string s = prefixed("'", text);
  s += '\'';
  return s;
}

std::string prefixed(const char* prefix, std::string_view tail) {
  std::string s(prefix);
  s.append(tail);
  return s;
}

std::string prefixed(const char* prefix, int64_t value) {
  return prefixed(prefix, std::to_string(value));
}

}  // namespace usdt::operand_text
