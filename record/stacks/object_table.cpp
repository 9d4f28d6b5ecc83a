#include "record/stacks/object_table.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>

#include "common/elf_file.h"
#include "common/elf_symbols.h"
#include "common/proc_maps.h"

namespace usdt::record {
namespace {

struct ElfEnder {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfEnder>;

struct Segment {
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t offset = 0;
};

std::vector<Segment> load_segments(Elf* elf) {
  std::vector<Segment> segments;
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return segments;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD)
      continue;
    segments.push_back({phdr.p_vaddr, phdr.p_filesz, phdr.p_offset});
  }
  return segments;
}

struct Candidate {
  format::ObjectSymbol symbol;
  uint8_t binding = 0;
  int table = 0;  // 0 .symtab, 1 .dynsym, 2 the debug file's .symtab
};

size_t leading_underscores(const std::string& name) {
  size_t n = name.find_first_not_of('_');
  return n == std::string::npos ? name.size() : n;
}

// Of several names at one offset, the one perf shows (choose_best_symbol in
// tools/perf/util/symbol.c), so that reports agree with perf script: a sized
// symbol, not weak, global, fewer leading underscores, the longer name.
bool better(const Candidate& a, const Candidate& b) {
  auto key = [](const Candidate& c) {
    return std::make_tuple(c.symbol.size == 0, c.binding == STB_WEAK, c.binding != STB_GLOBAL,
                           leading_underscores(c.symbol.name),
                           -static_cast<int64_t>(c.symbol.name.size()), c.table);
  };
  auto ka = key(a), kb = key(b);
  if (ka != kb) return ka < kb;
  return a.symbol.name < b.symbol.name;
}

// Appends the function symbols of elf's tables of type section_type, placed
// through segments (the mapped file's, also for a debug file's symbols).
// Returns whether such a table exists.
bool read_symbols(Elf* elf, uint32_t section_type, int table, const std::vector<Segment>& segments,
                  std::vector<Candidate>& out) {
  return for_each_elf_symbol(elf, section_type, [&](const ElfSymbol& sym) {
    if (sym.value == 0 || (sym.type != STT_FUNC && sym.type != STT_GNU_IFUNC)) return;
    for (const Segment& s : segments) {
      if (sym.value < s.vaddr || sym.value - s.vaddr >= s.filesz) continue;
      Candidate c;
      c.symbol.file_offset = sym.value - s.vaddr + s.offset;
      c.symbol.size = sym.size;
      c.symbol.name = sym.name;
      c.binding = static_cast<uint8_t>(sym.binding);
      c.table = table;
      out.push_back(std::move(c));
      return;
    }
  });
}

// One symbol per offset, the preferred name (see the header).
std::vector<format::ObjectSymbol> pick(std::vector<Candidate> candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.symbol.file_offset != b.symbol.file_offset) {
      return a.symbol.file_offset < b.symbol.file_offset;
    }
    return better(a, b);
  });
  std::vector<format::ObjectSymbol> out;
  for (Candidate& c : candidates) {
    if (!out.empty() && out.back().file_offset == c.symbol.file_offset) continue;
    out.push_back(std::move(c.symbol));
  }
  return out;
}

// The function symbols perf would use (dso__load): the file's .symtab, else
// the separate debug file's .symtab, else .dynsym; never a mix, so that a
// frame gets the name perf script gives it.
std::vector<format::ObjectSymbol> symbols_of(Elf* elf, const std::string& path,
                                             const DebugSearch& search) {
  std::vector<Segment> segments = load_segments(elf);
  std::vector<Candidate> candidates;
  if (read_symbols(elf, SHT_SYMTAB, 0, segments, candidates)) return pick(std::move(candidates));
  if (!path.empty()) {
    // Stripped: the debug file's addresses are the file's own link-time
    // addresses, placed through the file's segments.
    Result<DebugInfo> debug = find_debuginfo(path, search);
    if (debug && debug->source() != DebugSource::in_file &&
        read_symbols(debug->elf(), SHT_SYMTAB, 2, segments, candidates)) {
      return pick(std::move(candidates));
    }
  }
  read_symbols(elf, SHT_DYNSYM, 1, segments, candidates);
  return pick(std::move(candidates));
}

// Only the symbols that hold one of offsets (sorted), each with its size
// made explicit: a size-0 symbol reaches up to the next one of the file,
// which the written table no longer has.
std::vector<format::ObjectSymbol> holding(std::vector<format::ObjectSymbol> all,
                                          const std::vector<uint64_t>& offsets) {
  std::vector<format::ObjectSymbol> out;
  size_t kept = all.size();  // index of the last symbol kept
  for (uint64_t offset : offsets) {
    auto it = std::upper_bound(
        all.begin(), all.end(), offset,
        [](uint64_t o, const format::ObjectSymbol& s) { return o < s.file_offset; });
    if (it == all.begin()) continue;
    size_t i = static_cast<size_t>(std::prev(it) - all.begin());
    format::ObjectSymbol& s = all[i];
    uint64_t size = s.size;
    if (size == 0 && i + 1 < all.size()) size = all[i + 1].file_offset - s.file_offset;
    if (size != 0 && offset - s.file_offset >= size) continue;  // in a gap
    if (i == kept) continue;
    kept = i;
    format::ObjectSymbol copy = s;
    copy.size = size;
    out.push_back(std::move(copy));
  }
  return out;
}

}  // namespace

Result<VdsoImage> own_vdso() {
  uint64_t base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return Error("this process has no vdso");
  Result<std::vector<MapEntry>> maps = read_proc_maps(getpid());
  if (!maps) return maps.error();
  for (const MapEntry& m : *maps) {
    if (m.path != "[vdso]" || m.start != base) continue;
    VdsoImage image;
    const auto* begin = reinterpret_cast<const unsigned char*>(static_cast<uintptr_t>(base));
    image.bytes.assign(begin, begin + (m.end - m.start));
    if (elf_version(EV_CURRENT) == EV_NONE) return Error("libelf is too old");
    ElfPtr elf(elf_memory(reinterpret_cast<char*>(image.bytes.data()), image.bytes.size()));
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return Error("the vdso is not an ELF image");
    image.build_id = elf_build_id(elf.get());
    return image;
  }
  return Error("the vdso is not in /proc/self/maps");
}

bool changed_after(const struct stat& st, int64_t since_ns) {
  if (since_ns <= 0) return true;
  // The kernel stamps ctime from its coarse clock, up to a tick (10 ms at
  // HZ=100) behind CLOCK_REALTIME: a change just after since_ns can carry
  // an earlier time. Changes within that tick before since_ns count too.
  constexpr int64_t kCoarseTickNs = 10'000'000;
  const int64_t ctime_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  return ctime_ns > since_ns - kCoarseTickNs;
}

Result<format::ObjectTable> build_object_table(const StackObject& object,
                                               const DebugSearch& search) {
  format::ObjectTable table;
  table.build_id = object.build_id;
  table.path = object.path;
  if (object.path == "[vdso]") {
    Result<VdsoImage> vdso = own_vdso();
    if (!vdso) return vdso.error();
    if (!object.build_id.empty() && vdso->build_id != object.build_id) {
      return Error("the traced process's [vdso] is not the recorder's");
    }
    ElfPtr elf(elf_memory(reinterpret_cast<char*>(vdso->bytes.data()), vdso->bytes.size()));
    if (!elf) return Error("cannot read the vdso image");
    table.symbols = symbols_of(elf.get(), "", search);
    if (!object.offsets.empty()) table.symbols = holding(std::move(table.symbols), object.offsets);
    return table;
  }
  Result<ElfFile> elf = ElfFile::open(object.open_path);
  if (!elf && object.open_path != object.path) {
    struct stat st {};
    if (object.build_id.empty() && stat(object.path.c_str(), &st) == 0 &&
        changed_after(st, object.unchanged_since_ns)) {
      return Error("'" + object.path +
                   "' has changed since the recording began, and it has no build-id to check "
                   "it by");
    }
    elf = ElfFile::open(object.path);
  }
  if (!elf) return elf.error();
  if (!object.build_id.empty()) {
    std::string id = elf_build_id(elf->get());
    if (id != object.build_id) {
      return Error("'" + object.path + "' has changed since it was mapped (build-id " +
                   (id.empty() ? "none" : id) + ", mapped " + object.build_id + ")");
    }
  }
  table.symbols = symbols_of(elf->get(), elf->path(), search);
  if (!object.offsets.empty()) table.symbols = holding(std::move(table.symbols), object.offsets);
  return table;
}

}  // namespace usdt::record
