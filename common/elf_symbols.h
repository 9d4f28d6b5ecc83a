// The one walk over an ELF file's symbol tables (.symtab, .dynsym) that the
// probe notes (symbols in arg specs), the function probes and the stacks'
// object tables all read, each keeping the symbols it wants.
#pragma once

#include <gelf.h>
#include <libelf.h>

#include <cstdint>

namespace usdt {

// One named symbol defined in the file (not SHN_UNDEF).
struct ElfSymbol {
  const char* name = nullptr;  // never empty
  uint64_t value = 0;
  uint64_t size = 0;
  unsigned type = STT_NOTYPE;    // STT_*
  unsigned binding = STB_LOCAL;  // STB_*
  uint16_t section = 0;          // st_shndx
  bool dynamic = false;          // from .dynsym
};

// Every table: .symtab and .dynsym, in the order of the file's sections.
constexpr uint32_t kEverySymbolTable = 0;

// Calls f(const ElfSymbol&) for each named, defined symbol of elf's tables
// of section_type (SHT_SYMTAB, SHT_DYNSYM or kEverySymbolTable), in table
// order. A table whose entries cannot be read ends there: a malformed file
// gives fewer symbols, never made-up ones. Returns whether a table of that
// type exists.
template <typename F>
bool for_each_elf_symbol(Elf* elf, uint32_t section_type, F&& f) {
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_entsize == 0) continue;
    const bool table = shdr.sh_type == SHT_SYMTAB || shdr.sh_type == SHT_DYNSYM;
    if (!table || (section_type != kEverySymbolTable && shdr.sh_type != section_type)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    found = true;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0) continue;
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      ElfSymbol s;
      s.name = name;
      s.value = sym.st_value;
      s.size = sym.st_size;
      s.type = GELF_ST_TYPE(sym.st_info);
      s.binding = GELF_ST_BIND(sym.st_info);
      s.section = sym.st_shndx;
      s.dynamic = shdr.sh_type == SHT_DYNSYM;
      f(s);
    }
  }
  return found;
}

}  // namespace usdt
