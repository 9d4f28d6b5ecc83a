#include "common/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace usdt {
namespace {

// The index of the '(' that opens the parameter list: the one matching the
// last ')' (after " const", " &&" and the like), or npos.
size_t parameter_list_start(std::string_view s) {
  size_t close = s.rfind(')');
  if (close == std::string_view::npos) return std::string_view::npos;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::string demangle(std::string_view raw) {
  if (raw.substr(0, 2) != "_Z") return "";
  std::string input(raw);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return "";
  return out.get();
}

std::string strip_return_type(std::string_view s) {
  // Operators ("operator<", "operator()") defeat the bracket counting below;
  // they rarely are templates with a return type, so keep them whole.
  if (s.find("operator") != std::string_view::npos) return std::string(s);
  size_t params = parameter_list_start(s);
  if (params == std::string_view::npos) return std::string(s);
  // The last space outside <>, () and [] before the parameters ends the
  // return type.
  int depth = 0;
  size_t cut = std::string_view::npos;
  for (size_t i = 0; i < params; ++i) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ' ' && depth == 0) cut = i;
  }
  return std::string(cut == std::string_view::npos ? s : s.substr(cut + 1));
}

std::string strip_parameters(std::string_view s) {
  size_t params = parameter_list_start(s);
  return std::string(params == std::string_view::npos || params == 0 ? s : s.substr(0, params));
}

SymbolNames symbol_names(std::string_view raw) {
  std::string demangled = demangle(raw);
  if (demangled.empty()) {
    // GCC's clones (work.isra.0, work.constprop.0, work.part.0) are entry
    // points of work: "work" selects them.
    size_t dot = raw.find('.');
    return {std::string(raw),
            std::string(dot == 0 || dot == std::string_view::npos ? raw : raw.substr(0, dot))};
  }
  // A clone of a C++ function demangles as "f(int) [clone .isra.0]".
  std::string_view base = demangled;
  size_t clone = base.find(" [clone ");
  if (clone != std::string_view::npos) base = base.substr(0, clone);
  std::string display = strip_return_type(demangled);
  return {display, strip_parameters(strip_return_type(base))};
}

}  // namespace usdt
