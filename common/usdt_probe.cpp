#include "common/usdt_probe.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "common/elf_file.h"
#include "common/elf_symbols.h"

// Reading .note.stapsdt (SystemTap "UserSpaceProbeImplementation"):
//   note header: namesz, descsz, type = 3 (NT_STAPSDT), name "stapsdt"
//   desc: pc, base (.stapsdt.base link-time address), semaphore: each of the
//         file's word size, in the file's byte order; then provider, name and
//         argument string, each NUL-terminated.
// libelf translates the note headers (elf_getdata), not the descriptors, so
// the three addresses are decoded here by hand in the file's byte order.

#include "common/hex_text.h"

namespace usdt {
namespace {

constexpr uint32_t kNtStapsdt = 3;

struct LoadSegment {
  uint64_t vaddr;
  uint64_t memsz;
  uint64_t offset;
};

uint64_t read_word(const unsigned char* p, size_t size, bool little_endian) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) {
    size_t byte = little_endian ? size - 1 - i : i;
    v = (v << 8) | p[byte];
  }
  return v;
}

Result<std::vector<LoadSegment>> load_segments(const ElfFile& elf) {
  size_t count = 0;
  if (elf_getphdrnum(elf.get(), &count) != 0) {
    return Error(std::string("cannot read program headers: ") + elf_errmsg(-1));
  }
  std::vector<LoadSegment> segments;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf.get(), static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD) continue;
    segments.push_back({phdr.p_vaddr, phdr.p_memsz, phdr.p_offset});
  }
  return segments;
}

// A uprobe is placed by file offset: the address's offset inside the PT_LOAD
// segment that contains it, plus that segment's file offset.
std::optional<uint64_t> address_to_offset(const std::vector<LoadSegment>& segments, uint64_t addr) {
  for (const auto& s : segments) {
    if (addr >= s.vaddr && addr - s.vaddr < s.memsz) return addr - s.vaddr + s.offset;
  }
  return std::nullopt;
}

std::string read_build_id(const ElfFile& elf) {
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn != nullptr;
       scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    size_t offset = 0;
    GElf_Nhdr nhdr;
    size_t name_off = 0, desc_off = 0;
    while (offset < data->d_size &&
           (offset = gelf_getnote(data, offset, &nhdr, &name_off, &desc_off)) > 0) {
      const char* base = static_cast<const char*>(data->d_buf);
      if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
          std::memcmp(base + name_off, "GNU", 4) == 0) {
        std::string id;
        for (size_t i = 0; i < nhdr.n_descsz; ++i) {
          char buf[3];
          std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(base[desc_off + i]));
          id += buf;
        }
        return id;
      }
    }
  }
  return "";
}

// Symbol addresses by name from one symbol table, for "sym(%rip)" operands.
struct SymbolEntry {
  uint64_t address = 0;
  bool ambiguous = false;
  bool absolute = false;       // SHN_ABS: a number, not an address in the file
  bool thread_local_ = false;  // STT_TLS: an offset in each thread's TLS block
};

void collect_symbols(const ElfFile& elf, uint32_t section_type,
                     std::unordered_map<std::string, SymbolEntry>* table) {
  for_each_elf_symbol(elf.get(), section_type, [&](const ElfSymbol& sym) {
    if (sym.type == STT_SECTION || sym.type == STT_FILE) return;
    SymbolEntry entry{sym.value, false, sym.section == SHN_ABS, sym.type == STT_TLS};
    auto [it, inserted] = table->try_emplace(sym.name, entry);
    if (!inserted && it->second.address != sym.value) it->second.ambiguous = true;
  });
}

// Why an operand cannot use this symbol, or "" when it can.
std::string symbol_problem(const SymbolEntry* entry) {
  if (entry == nullptr) return "symbol not found";
  if (entry->ambiguous) return "ambiguous symbol";
  if (entry->absolute) return "absolute symbol (SHN_ABS), not an address in the file";
  if (entry->thread_local_) return "thread-local symbol: an offset in each thread's TLS block";
  return "";
}

// Resolves the symbols that operands name ("sym(%rip)", "sym+4(%rax)",
// "$sym"): .symtab first (complete when not stripped), then .dynsym. A name
// bound to several addresses is left unresolved, and so is one that is no
// address in the file. Thread-relative operands (%fs:tv@tpoff) name a TLS
// offset, not an address: they stay as they are.
void resolve_symbols(const ElfFile& elf, UsdtFile* file) {
  bool any = false;
  for (const auto& p : file->probes)
    for (const auto& l : p.locations)
      for (const auto& a : l.args) any = any || !a.symbol.empty();
  if (!any) return;
  std::unordered_map<std::string, SymbolEntry> symtab, dynsym;
  collect_symbols(elf, SHT_SYMTAB, &symtab);
  collect_symbols(elf, SHT_DYNSYM, &dynsym);
  GElf_Ehdr ehdr;
  const bool fixed_file = gelf_getehdr(elf.get(), &ehdr) != nullptr && ehdr.e_type == ET_EXEC;
  for (auto& p : file->probes) {
    for (auto& l : p.locations) {
      for (auto& a : l.args) {
        if (a.symbol.empty() || !a.segment.empty()) continue;
        if (a.location != ArgLocation::memory && a.location != ArgLocation::constant) continue;
        const SymbolEntry* entry = nullptr;
        if (auto it = symtab.find(a.symbol); it != symtab.end())
          entry = &it->second;
        else if (auto it2 = dynsym.find(a.symbol); it2 != dynsym.end())
          entry = &it2->second;
        std::string problem = symbol_problem(entry);
        if (problem.empty()) {
          resolve_symbol(a, entry->address, fixed_file);
        } else {
          a.error = std::move(problem);
        }
      }
    }
  }
}

// Reads one note's descriptor into a location; fails with the reason.
Result<UsdtLocation> decode_note(const unsigned char* desc, size_t size, size_t word,
                                 bool little_endian, std::string* provider, std::string* name) {
  if (size < 3 * word)
    return Error("descriptor is " + std::to_string(size) + " bytes, too short for 3 addresses");
  UsdtLocation loc;
  loc.address = read_word(desc, word, little_endian);
  loc.base = read_word(desc + word, word, little_endian);
  loc.semaphore_address = read_word(desc + 2 * word, word, little_endian);
  const char* p = reinterpret_cast<const char*>(desc) + 3 * word;
  const char* end = reinterpret_cast<const char*>(desc) + size;
  std::string_view strings[3];
  for (auto& s : strings) {
    const void* nul = std::memchr(p, '\0', static_cast<size_t>(end - p));
    if (nul == nullptr) return Error("provider, name or argument string is not NUL-terminated");
    s = std::string_view(p, static_cast<const char*>(nul) - p);
    p = static_cast<const char*>(nul) + 1;
    if (p > end) return Error("strings run past the descriptor");
  }
  if (strings[0].empty() || strings[1].empty()) return Error("empty provider or probe name");
  *provider = std::string(strings[0]);
  *name = std::string(strings[1]);
  loc.args_text = std::string(strings[2]);
  return loc;
}

Elf_Scn* find_stapsdt_notes(const ElfFile& elf) {
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn != nullptr;
       scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == SHT_NOTE &&
        elf.section_name(scn) == ".note.stapsdt") {
      return scn;
    }
  }
  return nullptr;
}

// Other machines: notes are still listed; arg specs are parsed with x86-64
// syntax and come out undecodable where they differ.
Arch arch_of(const ElfFile& elf) {
  return elf.machine() == EM_AARCH64 ? Arch::aarch64 : Arch::x86_64;
}

// Prelink: the runtime .stapsdt.base address minus the note's base shifts
// pc and semaphore.
std::optional<uint64_t> stapsdt_base(const ElfFile& elf) {
  Elf_Scn* base_scn = elf.find_section(".stapsdt.base");
  GElf_Shdr shdr;
  if (base_scn == nullptr || gelf_getshdr(base_scn, &shdr) == nullptr) return std::nullopt;
  return shdr.sh_addr;
}

// Moves a decoded location to its runtime addresses and finds their file
// offsets; fails when one lies outside every loadable segment.
Status place_location(const std::vector<LoadSegment>& segments, std::optional<uint64_t> base,
                      const std::string& what, UsdtLocation& loc) {
  if (base && *base != loc.base) {
    uint64_t delta = *base - loc.base;
    loc.address += delta;
    if (loc.semaphore_address != 0) loc.semaphore_address += delta;
  }
  auto pc_offset = address_to_offset(segments, loc.address);
  if (!pc_offset) {
    return Error(what + ": address " + hex(loc.address) + " is outside every loadable segment");
  }
  loc.file_offset = *pc_offset;
  if (loc.semaphore_address == 0) return {};
  auto sem_offset = address_to_offset(segments, loc.semaphore_address);
  if (!sem_offset) {
    return Error(what + ": semaphore " + hex(loc.semaphore_address) +
                 " is outside every loadable segment");
  }
  loc.semaphore_offset = *sem_offset;
  return {};
}

// The stapsdt notes of data, each location added to its probe in file.
Status read_notes(const ElfFile& elf, Elf_Data* data, const std::vector<LoadSegment>& segments,
                  UsdtFile& file) {
  const std::optional<uint64_t> base = stapsdt_base(elf);
  const size_t word = elf.is_64bit() ? 8 : 4;
  const bool little_endian = elf.is_little_endian();
  const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
  std::unordered_map<std::string, size_t> index_of;  // "provider\0name" -> probes index
  size_t offset = 0;
  for (size_t note_index = 0; offset < data->d_size; ++note_index) {
    GElf_Nhdr nhdr;
    size_t name_off = 0, desc_off = 0;
    size_t next = gelf_getnote(data, offset, &nhdr, &name_off, &desc_off);
    auto where = "note " + std::to_string(note_index);
    if (next == 0) return Error(where + " is truncated at offset " + hex(offset));
    bool is_stapsdt = nhdr.n_type == kNtStapsdt && nhdr.n_namesz == 8 &&
                      std::memcmp(bytes + name_off, "stapsdt", 8) == 0;
    if (!is_stapsdt) {
      offset = next;
      continue;
    }
    std::string provider, name;
    auto loc = decode_note(bytes + desc_off, nhdr.n_descsz, word, little_endian, &provider, &name);
    if (!loc) return loc.error().context(where + " at offset " + hex(offset));
    const std::string what = where + " (" + provider + ":" + name + ")";
    if (Status placed = place_location(segments, base, what, *loc); !placed) return placed;
    loc->args = parse_arg_specs(loc->args_text, file.arch);
    std::string key = provider;
    key += '\0';
    key += name;
    auto [it, inserted] = index_of.try_emplace(std::move(key), file.probes.size());
    if (inserted) file.probes.push_back(UsdtProbe{std::move(provider), std::move(name), {}});
    file.probes[it->second].locations.push_back(std::move(*loc));
    offset = next;
  }
  return {};
}

}  // namespace

Result<UsdtFile> read_usdt_file(const std::string& open_path, const std::string& display_path) {
  UsdtFile file;
  file.open_path = open_path;
  file.path = display_path.empty() ? open_path : display_path;
  auto context = "cannot read USDT notes of '" + file.path + "'";

  auto opened = ElfFile::open(open_path);
  if (!opened) {
    if (display_path.empty() || display_path == open_path) return opened.error();
    return opened.error().context("'" + file.path + "'");
  }
  const ElfFile& elf = *opened;
  file.arch = arch_of(elf);
  file.build_id = read_build_id(elf);
  Elf_Scn* note_scn = find_stapsdt_notes(elf);
  if (note_scn == nullptr) return file;

  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf.get(), &ehdr) != nullptr && ehdr.e_type == ET_REL) {
    // An object file's note addresses are relocations away from final.
    return Error("it is a relocatable object file: probes get addresses only once linked")
        .context(context);
  }
  auto segments = load_segments(elf);
  if (!segments) return segments.error().context(context);
  Elf_Data* data = elf_getdata(note_scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) {
    return Error(std::string("cannot read .note.stapsdt: ") + elf_errmsg(-1)).context(context);
  }
  if (Status read = read_notes(elf, data, *segments, file); !read) {
    return read.error().context(context);
  }
  resolve_symbols(elf, &file);
  return file;
}

}  // namespace usdt
