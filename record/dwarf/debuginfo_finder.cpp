#include "record/dwarf/debuginfo_finder.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <optional>

#include "common/file_io.h"

namespace usdt::record {
namespace {

// The CRC-32 table of polynomial 0xedb88320 (reflected IEEE 802.3), as
// gdb's gnu_debuglink_crc32 and zlib use.
constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

// libdw's handle on an open ELF file; null (not an error) when the file has
// no DWARF sections.
DwarfPtr open_dwarf(const ElfFile& elf) {
  return DwarfPtr(dwarf_begin_elf(elf.get(), DWARF_C_READ, nullptr));
}

bool has_debug_info(const ElfFile& elf) { return elf.find_section(".debug_info") != nullptr; }

Result<uint32_t> file_crc32(const std::string& path) {
  Result<UniqueFd> fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  uint32_t crc = 0;
  std::array<unsigned char, 65536> buf;
  for (;;) {
    Result<size_t> n = read_full(fd->get(), buf.data(), buf.size());
    if (!n) return n.error();
    crc = debuglink_crc32(crc, buf.data(), *n);
    if (*n < buf.size()) return crc;
  }
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The DWARF of a candidate separate debug file, or why it is not usable.
Result<DebugInfo> open_candidate(const std::string& path, DebugSource source) {
  Result<ElfFile> elf = ElfFile::open(path);
  if (!elf) return elf.error();
  if (!has_debug_info(*elf)) return Error("'" + path + "' has no .debug_info");
  DwarfPtr dwarf = open_dwarf(*elf);
  if (!dwarf) return Error("cannot read the DWARF of '" + path + "': " + dwarf_errmsg(-1));
  return DebugInfo(std::move(*elf), std::move(dwarf), source);
}

class Search {
 public:
  Search(const std::string& path, const DebugSearch& options) : path_(path), options_(options) {}

  Result<DebugInfo> run() {
    Result<ElfFile> elf = ElfFile::open(path_);
    if (!elf) return elf.error();
    if (has_debug_info(*elf)) {
      DwarfPtr dwarf = open_dwarf(*elf);
      if (dwarf) return DebugInfo(std::move(*elf), std::move(dwarf), DebugSource::in_file);
      // A damaged .debug_info: a separate file may still be good.
      tried_.push_back("its own .debug_info is unreadable (" + std::string(dwarf_errmsg(-1)) + ")");
    }
    if (std::optional<DebugInfo> found = by_build_id(*elf)) return std::move(*found);
    if (std::optional<DebugInfo> found = by_debuglink(*elf)) return std::move(*found);
    std::string msg = "'" + path_ + "' has no debug information";
    if (tried_.empty()) msg += " (no build-id, no .gnu_debuglink)";
    for (size_t i = 0; i < tried_.size(); ++i) msg += (i == 0 ? ": " : "; ") + tried_[i];
    return Error(msg);
  }

 private:
  std::optional<DebugInfo> by_build_id(const ElfFile& elf) {
    std::string id = elf_build_id(elf.get());
    if (id.size() < 4) return std::nullopt;
    std::string candidate =
        options_.debug_root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    if (!exists(candidate)) {
      tried_.push_back("no " + candidate);
      return std::nullopt;
    }
    Result<DebugInfo> info = open_candidate(candidate, DebugSource::build_id);
    if (!info) {
      tried_.push_back(info.error().message());
      return std::nullopt;
    }
    // A stale file of another build would give wrong parameters.
    if (elf_build_id(info->elf()) != id) {
      tried_.push_back(candidate + " has another build-id");
      return std::nullopt;
    }
    return std::move(*info);
  }

  std::optional<DebugInfo> by_debuglink(const ElfFile& elf) {
    GElf_Word crc = 0;
    const char* link = dwelf_elf_gnu_debuglink(elf.get(), &crc);
    if (link == nullptr || *link == '\0') return std::nullopt;
    const std::string name = link;
    char* real = realpath(path_.c_str(), nullptr);
    const std::string dir = directory_of(real != nullptr ? real : path_);
    free(real);
    const std::string candidates[] = {dir + "/" + name, dir + "/.debug/" + name,
                                      options_.debug_root + (dir == "/" ? "" : dir) + "/" + name};
    bool any = false;
    for (const std::string& candidate : candidates) {
      if (!exists(candidate) || same_file(candidate, path_)) continue;
      any = true;
      Result<uint32_t> actual = file_crc32(candidate);
      if (!actual) {
        tried_.push_back(actual.error().message());
        continue;
      }
      if (*actual != crc) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " does not match (CRC %08x, the link wants %08x)", *actual,
                      crc);
        tried_.push_back(candidate + buf);
        continue;
      }
      Result<DebugInfo> info = open_candidate(candidate, DebugSource::debuglink);
      if (info) return std::move(*info);
      tried_.push_back(info.error().message());
    }
    if (!any) {
      tried_.push_back(".gnu_debuglink names '" + name + "', found neither in " + dir + ", " + dir +
                       "/.debug nor " + candidates[2].substr(0, candidates[2].rfind('/')));
    }
    return std::nullopt;
  }

  const std::string& path_;
  const DebugSearch& options_;
  std::vector<std::string> tried_;
};

}  // namespace

uint32_t debuglink_crc32(uint32_t crc, const unsigned char* data, size_t size) {
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kCrcTable[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string elf_build_id(Elf* elf) {
  const void* id = nullptr;
  ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
  if (n <= 0 || id == nullptr) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (ssize_t i = 0; i < n; ++i) {
    unsigned char b = static_cast<const unsigned char*>(id)[i];
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

Result<DebugInfo> find_debuginfo(const std::string& path, const DebugSearch& search) {
  return Search(path, search).run();
}

}  // namespace usdt::record
