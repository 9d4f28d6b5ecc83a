#include "record/resolve/function_symbols.h"

#include <algorithm>
#include <tuple>

#include "common/demangle.h"
#include "common/elf_file.h"
#include "common/elf_symbols.h"
#include "common/glob_match.h"

namespace usdt::record {
namespace {

struct Segment {
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t offset = 0;
};

std::vector<Segment> load_segments(const ElfFile& elf) {
  std::vector<Segment> segments;
  size_t phnum = 0;
  if (elf_getphdrnum(elf.get(), &phnum) != 0) return segments;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf.get(), static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD)
      continue;
    segments.push_back({phdr.p_vaddr, phdr.p_filesz, phdr.p_offset});
  }
  return segments;
}

bool is_cold_part(std::string_view raw, std::string_view display) {
  return raw.ends_with(".cold") || raw.find(".cold.") != std::string_view::npos ||
         display.find("[clone .cold") != std::string_view::npos;
}

int underscores(std::string_view s) {
  size_t n = s.find_first_not_of('_');
  return static_cast<int>(n == std::string_view::npos ? s.size() : n);
}

int binding_rank(uint8_t binding) {
  if (binding == STB_GLOBAL) return 0;
  if (binding == STB_WEAK) return 1;
  return 2;
}

// The order in which aliases at one address are preferred. An IFUNC comes
// last: the code there is its resolver, which another name may call so.
bool preferred(const FunctionSymbol& a, const FunctionSymbol& b) {
  return std::make_tuple(a.ifunc, binding_rank(a.binding), underscores(a.raw), a.raw.size(),
                         a.raw) <
         std::make_tuple(b.ifunc, binding_rank(b.binding), underscores(b.raw), b.raw.size(), b.raw);
}

}  // namespace

Result<std::vector<FunctionSymbol>> read_function_symbols(const std::string& path) {
  Result<ElfFile> elf = ElfFile::open(path);
  if (!elf) return elf.error();
  std::vector<Segment> segments = load_segments(*elf);
  std::vector<FunctionSymbol> out;
  for_each_elf_symbol(elf->get(), kEverySymbolTable, [&](const ElfSymbol& sym) {
    if (sym.value == 0 || (sym.type != STT_FUNC && sym.type != STT_GNU_IFUNC)) return;
    FunctionSymbol f;
    f.raw = sym.name;
    SymbolNames names = symbol_names(f.raw);
    if (is_cold_part(f.raw, names.display)) return;
    f.display = std::move(names.display);
    f.qualified = std::move(names.qualified);
    f.address = sym.value;
    f.size = sym.size;
    f.binding = static_cast<uint8_t>(sym.binding);
    f.dynamic = sym.dynamic;
    f.ifunc = sym.type == STT_GNU_IFUNC;
    for (const Segment& s : segments) {
      if (f.address >= s.vaddr && f.address < s.vaddr + s.filesz) {
        f.file_offset = f.address - s.vaddr + s.offset;
        out.push_back(std::move(f));
        return;
      }
    }
  });
  std::stable_sort(out.begin(), out.end(), [](const FunctionSymbol& a, const FunctionSymbol& b) {
    return a.address < b.address;
  });
  return out;
}

bool function_matches(std::string_view pattern, const FunctionSymbol& f) {
  return glob_match(pattern, f.raw) || glob_match(pattern, f.display) ||
         glob_match(pattern, f.qualified);
}

std::vector<FunctionSymbol> select_functions(const std::vector<FunctionSymbol>& all,
                                             std::string_view pattern) {
  std::vector<FunctionSymbol> out;
  for (const FunctionSymbol& f : all) {
    if (!function_matches(pattern, f)) continue;
    if (!out.empty() && out.back().address == f.address) {
      if (preferred(f, out.back())) out.back() = f;
      continue;
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace usdt::record
