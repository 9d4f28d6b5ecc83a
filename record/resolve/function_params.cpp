#include "record/resolve/function_params.h"

#include <optional>

#include "common/elf_file.h"
#include "common/elf_symbols.h"
#include "common/hex_text.h"
#include "formats/trace_types.h"
#include "record/dwarf/function_args.h"
#include "record/dwarf/function_signature.h"
#include "record/plan/site_sampling.h"

namespace usdt::record {

// A probed file: its link-time address of each file offset (PT_LOAD), its
// function symbols by address, and its debug information if any.
struct FunctionParamReader::File {
  std::optional<ElfFile> elf;
  std::optional<DebugInfo> debug;
  std::string no_debug;  // why there is no debug information
};

namespace {

// The link-time address of a file offset, through the PT_LOAD holding it.
std::optional<uint64_t> address_of(Elf* elf, uint64_t file_offset) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (file_offset >= ph.p_offset && file_offset - ph.p_offset < ph.p_filesz) {
      return file_offset - ph.p_offset + ph.p_vaddr;
    }
  }
  return std::nullopt;
}

// GCC's clones whose parameters differ from the DWARF of the original:
// foo.isra.0 (dropped or split parameters), foo.constprop.0 (a constant
// folded in), foo.part.0 (an outlined part). The DWARF of such a clone
// describes the source function, not the registers.
std::string clone_symbol_at(Elf* elf, uint64_t address) {
  std::string clone;
  for_each_elf_symbol(elf, kEverySymbolTable, [&](const ElfSymbol& sym) {
    if (!clone.empty() || sym.value != address || sym.type != STT_FUNC) return;
    const std::string name = sym.name;
    for (const char* marker : {".isra.", ".constprop.", ".part.", ".cold"}) {
      if (name.find(marker) != std::string::npos) clone = name;
    }
  });
  return clone;
}

FunctionParams abi_registers(bool ret, std::string why, std::string hint) {
  FunctionParams p;
  p.args = ret ? function_return_args() : function_entry_args();
  p.fallback = std::move(why);
  p.hint = std::move(hint);
  return p;
}

}  // namespace

FunctionParamReader::FunctionParamReader(DebugSearch search) : search_(std::move(search)) {}
FunctionParamReader::~FunctionParamReader() = default;
FunctionParamReader::FunctionParamReader(FunctionParamReader&&) noexcept = default;
FunctionParamReader& FunctionParamReader::operator=(FunctionParamReader&&) noexcept = default;

FunctionParamReader::File& FunctionParamReader::file(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return *it->second;
  auto f = std::make_unique<File>();
  Result<ElfFile> elf = ElfFile::open(path);
  if (elf) f->elf.emplace(std::move(*elf));
  Result<DebugInfo> debug = find_debuginfo(path, search_);
  if (debug) {
    f->debug.emplace(std::move(*debug));
  } else {
    f->no_debug = debug.error().message();
  }
  return *files_.emplace(path, std::move(f)).first->second;
}

FunctionParams FunctionParamReader::read(const std::string& path, uint64_t file_offset,
                                         uint64_t offset, bool ret) {
  if (offset != 0) return abi_registers(ret, "", "");
  File& f = file(path);
  if (!f.debug) {
    return abi_registers(
        ret, f.no_debug,
        "install its debug information (on Debian the package's -dbgsym or -dbg package, which "
        "puts it under /usr/lib/debug/.build-id/), or build it with -g");
  }
  if (!f.elf) return abi_registers(ret, "cannot read '" + path + "'", "");
  std::optional<uint64_t> address = address_of(f.elf->get(), file_offset);
  if (!address) {
    return abi_registers(
        ret, "file offset " + hex(file_offset) + " of '" + path + "' is in no loadable segment",
        "");
  }
  Result<FunctionSignature> sig = read_function_signature(f.debug->dwarf(), *address);
  if (!sig) {
    return abi_registers(
        ret,
        sig.error().message() + " in the debug information " +
            (f.debug->path() == path ? "of '" + path + "'" : "'" + f.debug->path() + "'"),
        "a function written in assembly, or in a file compiled without -g, has "
        "no parameters in DWARF");
  }
  if (std::string clone = clone_symbol_at(f.elf->get(), *address); !clone.empty()) {
    return abi_registers(ret,
                         "'" + clone +
                             "' is a GCC clone whose parameters differ from the "
                             "DWARF of " +
                             sig->name,
                         "");
  }
  if (!sig->abi_changed.empty()) return abi_registers(ret, sig->name + ": " + sig->abi_changed, "");
  FunctionParams p;
  std::vector<FunctionArg> args = ret ? return_args(*sig) : entry_args(*sig);
  // A trace holds at most 12 arguments per site (sys/sdt.h's limit).
  if (args.size() > static_cast<size_t>(format::kMaxArgs)) args.resize(format::kMaxArgs);
  for (FunctionArg& a : args) {
    p.args.push_back(std::move(a.spec));
    p.names.push_back(std::move(a.name));
    p.types.push_back(std::move(a.type));
    p.pointers.push_back(a.is_pointer);
  }
  return p;
}

}  // namespace usdt::record
