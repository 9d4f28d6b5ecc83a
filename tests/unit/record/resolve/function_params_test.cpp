// Parameters from DWARF through record/resolve/function_params.h (and the dwarf/
// signature reader and ABI placement under it), on the fixture programs of
// tests/fixtures/fixture_params*.c*: at -O0 and -O2, DWARF in the file or in
// a .debug file found through .gnu_debuglink, and without debug information.
#include "record/resolve/function_params.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "common/elf_file.h"
#include "params_fixture_paths.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/dwarf/function_signature.h"
#include "record/resolve/function_listing.h"
#include "record/resolve/function_symbols.h"
#include "record/resolve/probe_resolver.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// The file offset of a function, by its symbol (raw or demangled name).
Result<uint64_t> symbol_file_offset(const std::string& path, const std::string& symbol, uint64_t) {
  Result<std::vector<FunctionSymbol>> all = read_function_symbols(path);
  if (!all) return all.error();
  for (const FunctionSymbol& f : *all) {
    if (f.raw == symbol) return f.file_offset;
  }
  return Error("no symbol " + symbol);
}

FunctionParams params_of(FunctionParamReader& reader, const std::string& path,
                         const std::string& symbol, bool ret = false) {
  Result<uint64_t> offset = symbol_file_offset(path, symbol, 0);
  REQUIRE(offset.ok());
  return reader.read(path, *offset, 0, ret);
}

// "name spec" per argument, or "name !error" for one no sample holds.
std::vector<std::string> shown(const FunctionParams& p) {
  std::vector<std::string> out;
  for (size_t i = 0; i < p.args.size(); ++i) {
    const std::string name = i < p.names.size() ? p.names[i] : "?";
    if (p.args[i].location == ArgLocation::undecodable) {
      out.push_back(name + " !" + p.args[i].error);
    } else {
      out.push_back(name + " " + p.args[i].text);
    }
  }
  return out;
}

using Lines = std::vector<std::string>;

void check_c_program(const std::string& path) {
  INFO(path);
  FunctionParamReader reader;
  FunctionParams ints = params_of(reader, path, "p_ints");
  CHECK(ints.fallback.empty());
  CHECK(shown(ints) ==
        Lines{"a -1@%dil", "b 1@%sil", "c -2@%dx", "d 2@%cx", "e -4@%r8d", "f 4@%r9d"});
  CHECK(ints.types == Lines{"signed char", "unsigned char", "short int", "short unsigned int",
                            "int", "unsigned int"});
  CHECK(shown(params_of(reader, path, "p_longs")) ==
        Lines{"a -8@%rdi", "b 8@%rsi", "flag 1@%dl", "ch -1@%cl", "col 4@%r8d"});
  FunctionParams str = params_of(reader, path, "p_string");
  CHECK(shown(str) == Lines{"name 8@%rdi", "count -4@%esi"});
  CHECK(str.types.at(0) == "const char *");
  // The float and the double are in %xmm0/%xmm1; b is still the second INTEGER register.
  CHECK(shown(params_of(reader, path, "p_float_middle")) ==
        Lines{"a -4@%edi", "d 8f@%xmm0", "f 4f@%xmm1", "b -4@%esi"});
  CHECK(shown(params_of(reader, path, "p_small_struct")) ==
        Lines{"a -4@%edi", "p !is passed by value in %rsi and %rdx", "b -4@%ecx"});
  CHECK(shown(params_of(reader, path, "p_struct_no_room")) ==
        Lines{"a -8@%rdi", "b -8@%rsi", "c -8@%rdx", "d -8@%rcx", "e -8@%r8",
              "p !is passed by value on the stack at 8(%rsp)", "f -8@%r9"});
  CHECK(shown(params_of(reader, path, "p_mixed_struct")) ==
        Lines{"m !is passed by value in %rdi and %xmm0", "a -4@%esi"});
  CHECK(shown(params_of(reader, path, "p_big")) ==
        Lines{"a -4@%edi", "b !is passed by value on the stack at 8(%rsp)", "c -4@%esi"});
  CHECK(shown(params_of(reader, path, "p_many")) ==
        Lines{"a1 -8@%rdi", "a2 -8@%rsi", "a3 -8@%rdx", "a4 -8@%rcx", "a5 -8@%r8", "a6 -8@%r9",
              "a7 -4@8(%rsp)", "a8 -8@16(%rsp)", "a9 -2@24(%rsp)"});
  // The returned struct's address takes %rdi.
  CHECK(shown(params_of(reader, path, "p_ret_big")) == Lines{"k -4@%esi", "m -8@%rdx"});
  CHECK(params_of(reader, path, "p_void").args.empty());
  CHECK(shown(params_of(reader, path, "p_variadic")) == Lines{"n -4@%edi"});
  CHECK(shown(params_of(reader, path, "p_inline")) == Lines{"n -4@%edi", "extra -4@%esi"});

  // Return values.
  CHECK(params_of(reader, path, "p_void", true).args.empty());
  CHECK(shown(params_of(reader, path, "p_ret_double", true)) == Lines{"ret 8f@%xmm0"});
  CHECK(shown(params_of(reader, path, "p_ret_ushort", true)) == Lines{"ret 2@%ax"});
  CHECK(shown(params_of(reader, path, "p_ret_negative", true)) == Lines{"ret -4@%eax"});
  CHECK(shown(params_of(reader, path, "p_string", true)) == Lines{"ret 8@%rax"});
  CHECK(shown(params_of(reader, path, "p_ret_big", true)) ==
        Lines{"ret !is returned by value, which a return probe cannot read"});
}

void check_cxx_program(const std::string& path) {
  INFO(path);
  FunctionParamReader reader;
  FunctionParams add = params_of(reader, path, "_ZN2ns7Counter3addEil");
  CHECK(add.fallback.empty());
  CHECK(shown(add) == Lines{"this 8@%rdi", "n -4@%esi", "m -8@%rdx"});
  // Not trivially copyable: a pointer to a copy takes %rdi.
  FunctionParams copy = params_of(reader, path, "_ZN2ns7by_copyENS_7TrackedEi");
  REQUIRE(copy.args.size() == 2);
  CHECK(copy.args[0].location == ArgLocation::undecodable);
  CHECK(copy.args[0].error.find("invisible reference") != std::string::npos);
  CHECK(shown(copy).at(1) == "after -4@%esi");
  CHECK(shown(params_of(reader, path, "_ZN2ns5twiceIiEET_S1_")) == Lines{"x -4@%edi"});
  CHECK(shown(params_of(reader, path, "_ZN2ns5twiceIiEET_S1_", true)) == Lines{"ret -4@%eax"});
}

}  // namespace

TEST_CASE("C parameters and return values at -O0 and -O2, DWARF in the file", "[function_params]") {
  check_c_program(FIXTURE_PARAMS_O0);
  check_c_program(FIXTURE_PARAMS_O2);
}

TEST_CASE("C++ methods, a class passed by invisible reference, a template", "[function_params]") {
  check_cxx_program(FIXTURE_PARAMS_CXX_O0);
  check_cxx_program(FIXTURE_PARAMS_CXX_O2);
}

TEST_CASE("DWARF found through .gnu_debuglink", "[function_params]") {
  check_c_program(FIXTURE_PARAMS_SPLIT);
  Result<DebugInfo> info = find_debuginfo(FIXTURE_PARAMS_SPLIT);
  REQUIRE(info.ok());
  CHECK(info->source() == DebugSource::debuglink);
  CHECK(info->path() == std::string(FIXTURE_PARAMS_SPLIT) + ".debug");
}

TEST_CASE("without debug information: the ABI registers, and why", "[function_params]") {
  FunctionParamReader reader;
  FunctionParams p = params_of(reader, FIXTURE_PARAMS_NODEBUG, "p_ints");
  CHECK(p.args.size() == 6);
  CHECK(p.args[0].text == "8@%rdi");
  CHECK(p.names.empty());
  CHECK(p.fallback.find("has no debug information") != std::string::npos);
  CHECK(p.fallback.find("/usr/lib/debug/.build-id/") != std::string::npos);
  CHECK(p.hint.find("-dbgsym") != std::string::npos);
  FunctionParams r = params_of(reader, FIXTURE_PARAMS_NODEBUG, "p_ints", true);
  CHECK(r.args.size() == 1);
  CHECK(r.args[0].text == "8@%rax");
}

TEST_CASE("-l -v shows each parameter, its type and how it is read", "[function_params]") {
  const std::string path = FIXTURE_PARAMS_O2;
  FunctionParamReader reader;
  std::ostringstream out;
  print_function_args(params_of(reader, path, "p_small_struct"), false, 0, out);
  print_function_args(params_of(reader, path, "p_void", true), true, 0, out);
  print_function_args(params_of(reader, FIXTURE_PARAMS_NODEBUG, "p_ints"), false, 0, out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("    arg0 a (int): -4@%edi  int32 in %edi  [sampled register]\n") !=
        std::string::npos);
  CHECK(text.find(
            "    arg1 p (struct pair)  [not recorded: is passed by value in %rsi and %rdx]\n") !=
        std::string::npos);
  CHECK(text.find("    arg2 b (int): -4@%ecx  int32 in %ecx  [sampled register]\n") !=
        std::string::npos);
  CHECK(text.find("    returns nothing (void)\n") != std::string::npos);
  CHECK(text.find("  no parameters from DWARF: '" + std::string(FIXTURE_PARAMS_NODEBUG) +
                  "' has no debug information") != std::string::npos);
  CHECK(text.find("    arg5: 8@%r9  uint64 in %r9  [sampled register]\n") != std::string::npos);
}

TEST_CASE("a GCC clone: its DWARF is the original's, so the ABI registers and why",
          "[function_params]") {
  const std::string path = FIXTURE_PARAMS_O2;
  // GCC 12 names it p_clone.constprop.0.isra.0; other versions differently.
  std::string clone;
  Result<ElfFile> elf = ElfFile::open(path);
  REQUIRE(elf.ok());
  Elf_Scn* symtab = elf->find_section(".symtab");
  REQUIRE(symtab != nullptr);
  GElf_Shdr sh;
  REQUIRE(gelf_getshdr(symtab, &sh) != nullptr);
  Elf_Data* data = elf_getdata(symtab, nullptr);
  for (size_t i = 0; data != nullptr && i < sh.sh_size / sh.sh_entsize; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
    const char* name = elf_strptr(elf->get(), sh.sh_link, sym.st_name);
    if (name != nullptr && std::string(name).rfind("p_clone.", 0) == 0) clone = name;
  }
  if (clone.empty()) {
    WARN("this compiler made no clone of p_clone at -O2; nothing to check");
    return;
  }
  FunctionParamReader reader;
  FunctionParams p = params_of(reader, path, clone);
  CHECK(p.args.size() == 6);
  CHECK(p.names.empty());
  CHECK(p.fallback ==
        "'" + clone + "' is a GCC clone whose parameters differ from the DWARF of p_clone");
}

TEST_CASE("damaged DWARF: parameters or the ABI registers, never a crash", "[function_params]") {
  // Copies of the -O2 fixture with bytes of .debug_info and .debug_abbrev
  // overwritten, read as a recording would read them.
  const std::string path = FIXTURE_PARAMS_O2;
  std::string bytes;
  {
    FILE* f = fopen(path.c_str(), "rb");
    REQUIRE(f != nullptr);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    fclose(f);
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // file offset, size
  {
    Result<ElfFile> elf = ElfFile::open(path);
    REQUIRE(elf.ok());
    for (const char* name : {".debug_info", ".debug_abbrev"}) {
      Elf_Scn* scn = elf->find_section(name);
      REQUIRE(scn != nullptr);
      GElf_Shdr sh;
      REQUIRE(gelf_getshdr(scn, &sh) != nullptr);
      ranges.emplace_back(sh.sh_offset, sh.sh_size);
    }
  }
  const std::vector<std::string> functions = {"p_ints", "p_small_struct", "p_many", "p_ret_big"};
  std::vector<uint64_t> offsets;
  for (const std::string& fn : functions) {
    Result<uint64_t> off = symbol_file_offset(path, fn, 0);
    REQUIRE(off.ok());
    offsets.push_back(*off);
  }
  char tmpl[] = "/tmp/usdt-damaged-dwarf-XXXXXX";
  int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  close(fd);
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1103515245u + 12345u; };
  for (int round = 0; round < 60; ++round) {
    std::string damaged = bytes;
    for (int k = 0; k < 8; ++k) {
      const auto& [start, size] = ranges[next() % ranges.size()];
      damaged[start + next() % size] = static_cast<char>(next() >> 8);
    }
    FILE* f = fopen(tmpl, "wb");
    REQUIRE(f != nullptr);
    fwrite(damaged.data(), 1, damaged.size(), f);
    fclose(f);
    FunctionParamReader reader;
    for (size_t i = 0; i < functions.size(); ++i) {
      for (bool ret : {false, true}) {
        FunctionParams p = reader.read(tmpl, offsets[i], 0, ret);
        // Either DWARF's parameters (each named) or the registers with a reason.
        CHECK((p.fallback.empty() ? p.names.size() == p.args.size() : p.names.empty()));
      }
    }
  }
  unlink(tmpl);
}
