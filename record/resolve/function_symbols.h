// The functions of an ELF file, for uprobe:PATH:SYMBOL: every defined
// STT_FUNC/STT_GNU_IFUNC symbol of .symtab and .dynsym (a stripped library
// such as libc.so.6 has only .dynsym), with its size and the file offset
// the kernel wants. Names are matched and shown demangled (common/demangle.h).
//
// Aliases (glibc's malloc and __libc_malloc, .symtab and .dynsym copies of
// one symbol) share an address: a uprobe there must be attached once, so
// select_functions() keeps one symbol per address, chosen deterministically.
// Local symbols of one name at different addresses (two `static` helpers in
// two translation units) are different functions and are all kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace usdt::record {

struct FunctionSymbol {
  std::string raw;        // as in the symbol table: "_ZN2ns6Server6handleEi"
  std::string display;    // "ns::Server::handle(int)"
  std::string qualified;  // "ns::Server::handle"
  uint64_t address = 0;   // link-time (st_value)
  uint64_t size = 0;      // st_size; 0 when the table does not say
  uint64_t file_offset = 0;
  uint8_t binding = 0;   // STB_GLOBAL, STB_WEAK, STB_LOCAL
  bool dynamic = false;  // from .dynsym
  // STT_GNU_IFUNC: the address is the resolver, which the dynamic linker
  // runs when it binds the name (once per process and reference) to pick
  // an implementation for this CPU; calls go to that implementation. A
  // probe here counts bindings, not calls.
  bool ifunc = false;
};

// The file's functions in address order, aliases included. Fails when the
// file cannot be read as ELF. Symbols outside every PT_LOAD segment and the
// cold parts GCC splits off (name.cold, "[clone .cold]") are left out: they
// are not function entries.
Result<std::vector<FunctionSymbol>> read_function_symbols(const std::string& path);

// Whether a symbol pattern (glob) names the symbol: its raw name, its
// display name or its qualified name.
bool function_matches(std::string_view pattern, const FunctionSymbol& f);

// The functions the pattern selects, one per address (see above), in
// address order. Of several names at one address the first in this order
// is kept: not an IFUNC (the resolver's own name, when it has one), then
// global, weak, local; fewer leading underscores; shorter; alphabetical.
std::vector<FunctionSymbol> select_functions(const std::vector<FunctionSymbol>& all,
                                             std::string_view pattern);

}  // namespace usdt::record
