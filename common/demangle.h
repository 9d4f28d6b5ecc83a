// C++ symbol names as people write them. The Itanium C++ ABI mangles
// "ns::Server::handle(int)" into "_ZN2ns6Server6handleEi"; abi::__cxa_demangle
// (libstdc++/libsupc++) turns it back. For a template function the demangled
// text starts with the return type ("int ns::twice<int>(int)"), which nobody
// types when naming a function, so the display name drops it.
#pragma once

#include <string>
#include <string_view>

namespace usdt {

struct SymbolNames {
  std::string display;    // "ns::twice<int>(int)"; a C name as it is ("work", "work.isra.0")
  std::string qualified;  // without parameters: "ns::twice<int>"; C: up to a clone suffix ("work")
};

// The names of one ELF symbol. A name that is not mangled (C, or a mangled
// name the demangler rejects) is its own display name.
SymbolNames symbol_names(std::string_view raw);

// The demangled text of a mangled name, or "" when raw is not one.
std::string demangle(std::string_view raw);

// A demangled function name without its leading return type and, for
// qualified, without its parameter list and trailing qualifiers.
std::string strip_return_type(std::string_view demangled);
std::string strip_parameters(std::string_view demangled);

}  // namespace usdt
