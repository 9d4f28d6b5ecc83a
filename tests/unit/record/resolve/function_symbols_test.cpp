#include "record/resolve/function_symbols.h"

#include <elf.h>

#include <catch2/catch.hpp>

#include "common/demangle.h"
#include "fixture_paths.h"

using namespace usdt;
using namespace usdt::record;

namespace {

FunctionSymbol fn(const char* raw, uint64_t address, uint8_t binding = STB_GLOBAL) {
  FunctionSymbol f;
  f.raw = raw;
  SymbolNames names = symbol_names(raw);
  f.display = names.display;
  f.qualified = names.qualified;
  f.address = address;
  f.size = 16;
  f.file_offset = address;
  f.binding = binding;
  return f;
}

std::vector<std::string> displays(const std::vector<FunctionSymbol>& fs) {
  std::vector<std::string> out;
  for (const FunctionSymbol& f : fs) out.push_back(f.display);
  return out;
}

}  // namespace

TEST_CASE("aliases at one address give one function, chosen the same way every time",
          "[function_symbols]") {
  // As in glibc: malloc and __libc_malloc at one address, both in .symtab
  // and .dynsym; a weak alias; a local helper.
  std::vector<FunctionSymbol> all = {
      fn("__libc_malloc", 0x100),           fn("malloc", 0x100), fn("malloc", 0x100),
      fn("__malloc_weak", 0x100, STB_WEAK), fn("free", 0x200),   fn("helper", 0x300, STB_LOCAL)};
  CHECK(displays(select_functions(all, "*")) ==
        std::vector<std::string>{"malloc", "free", "helper"});
  CHECK(displays(select_functions(all, "*malloc*")) == std::vector<std::string>{"malloc"});
  // Only names the pattern selects are candidates.
  CHECK(displays(select_functions(all, "__*")) == std::vector<std::string>{"__libc_malloc"});
  std::vector<FunctionSymbol> weak_first = {fn("b_weak", 0x10, STB_WEAK), fn("zz_global", 0x10)};
  CHECK(displays(select_functions(weak_first, "*")) == std::vector<std::string>{"zz_global"});
}

TEST_CASE("local functions of one name at different addresses are all kept", "[function_symbols]") {
  std::vector<FunctionSymbol> all = {fn("helper", 0x100, STB_LOCAL), fn("call_a", 0x120),
                                     fn("helper", 0x140, STB_LOCAL)};
  std::vector<FunctionSymbol> helpers = select_functions(all, "helper");
  REQUIRE(helpers.size() == 2);
  CHECK(helpers[0].address == 0x100);
  CHECK(helpers[1].address == 0x140);
}

TEST_CASE("patterns match the raw, the displayed and the qualified name", "[function_symbols]") {
  std::vector<FunctionSymbol> all = {fn("_ZN2ns6Server6handleEi", 0x100),
                                     fn("_ZN2ns6Server6handleEPKc", 0x200),
                                     fn("_ZN2ns5twiceIiEET_S1_", 0x300), fn("work.isra.0", 0x400)};
  CHECK(displays(select_functions(all, "ns::Server::handle*")) ==
        std::vector<std::string>{"ns::Server::handle(int)", "ns::Server::handle(char const*)"});
  CHECK(select_functions(all, "ns::Server::handle").size() == 2);
  CHECK(displays(select_functions(all, "ns::Server::handle(int)")) ==
        std::vector<std::string>{"ns::Server::handle(int)"});
  CHECK(select_functions(all, "_ZN2ns6Server6handleEi").size() == 1);
  CHECK(displays(select_functions(all, "ns::twice<int>")) ==
        std::vector<std::string>{"ns::twice<int>(int)"});
  CHECK(displays(select_functions(all, "work")) == std::vector<std::string>{"work.isra.0"});
  CHECK(select_functions(all, "ns::Server").empty());
}

TEST_CASE("a file's functions: sizes, offsets, no cold parts", "[function_symbols]") {
  Result<std::vector<FunctionSymbol>> all = read_function_symbols(FIXTURE_LIB);
  REQUIRE(all.ok());
  for (const FunctionSymbol& f : *all) {
    CHECK(f.raw.find(".cold") == std::string::npos);
    CHECK(f.file_offset != 0);
  }
  Result<std::vector<FunctionSymbol>> bad = read_function_symbols("/etc/hostname");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("not an ELF file") != std::string::npos);
}
