#include "common/demangle.h"

#include <catch2/catch.hpp>

using namespace usdt;

TEST_CASE("C names are their own display name; clones match their function", "[demangle]") {
  SymbolNames plain = symbol_names("work");
  CHECK(plain.display == "work");
  CHECK(plain.qualified == "work");
  SymbolNames clone = symbol_names("work.isra.0");
  CHECK(clone.display == "work.isra.0");
  CHECK(clone.qualified == "work");
  CHECK(demangle("work").empty());
  CHECK(demangle("_Znot_valid").empty());
}

TEST_CASE("C++ names are demangled, without a template's return type", "[demangle]") {
  SymbolNames method = symbol_names("_ZN2ns6Server6handleEi");
  CHECK(method.display == "ns::Server::handle(int)");
  CHECK(method.qualified == "ns::Server::handle");
  SymbolNames overload = symbol_names("_ZN2ns6Server6handleEPKc");
  CHECK(overload.display == "ns::Server::handle(char const*)");
  SymbolNames tmpl = symbol_names("_ZN2ns5twiceIiEET_S1_");
  CHECK(tmpl.display == "ns::twice<int>(int)");
  CHECK(tmpl.qualified == "ns::twice<int>");
  SymbolNames cnst = symbol_names("_ZNK2ns6Server3getEv");
  CHECK(cnst.display == "ns::Server::get() const");
  CHECK(cnst.qualified == "ns::Server::get");
  SymbolNames anon = symbol_names("_ZN12_GLOBAL__N_14stepEi");
  CHECK(anon.display == "(anonymous namespace)::step(int)");
  CHECK(anon.qualified == "(anonymous namespace)::step");
  SymbolNames cloned = symbol_names("_ZN2ns4diveEi.isra.0");
  CHECK(cloned.qualified == "ns::dive");
}

TEST_CASE("return types are cut at the last space outside brackets", "[demangle]") {
  CHECK(strip_return_type("std::vector<int, std::allocator<int> > ns::make<int>(int)") ==
        "ns::make<int>(int)");
  CHECK(strip_return_type("ns::operator<<(std::ostream&, int)") ==
        "ns::operator<<(std::ostream&, int)");
  CHECK(strip_parameters("ns::f(int) const") == "ns::f");
  CHECK(strip_parameters("f") == "f");
}
