// Finds a file's DWARF the way gdb and perf do, in this order:
//   1. in the file itself (.debug_info);
//   2. by build-id: DEBUG_ROOT/.build-id/xx/rest.debug (the -dbgsym packages'
//      layout), accepted only when the found file carries the same build-id;
//   3. through .gnu_debuglink: NAME next to the file, in its .debug/
//      subdirectory, and under DEBUG_ROOT/<the file's directory>/, accepted
//      only when the CRC-32 of the candidate equals the link's.
// Sources of truth: gdb's "Separate Debug Files" chapter and the
// .gnu_debuglink CRC (the same CRC-32 as zlib's crc32).
#pragma once

#include <elfutils/libdw.h>

#include <memory>
#include <string>
#include <vector>

#include "common/elf_file.h"
#include "common/result.h"

namespace usdt::record {

// Where debug information was found.
enum class DebugSource : uint8_t { in_file, build_id, debuglink };

struct DwarfCloser {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
using DwarfPtr = std::unique_ptr<Dwarf, DwarfCloser>;

// Owns the ELF file that holds the DWARF and libdw's handle on it; the
// handle is released before the ELF file (member order).
class DebugInfo {
 public:
  DebugInfo(ElfFile elf, DwarfPtr dwarf, DebugSource source)
      : elf_(std::move(elf)), dwarf_(std::move(dwarf)), source_(source) {}

  Dwarf* dwarf() const { return dwarf_.get(); }
  Elf* elf() const { return elf_.get(); }
  const std::string& path() const { return elf_.path(); }  // the file holding the DWARF
  DebugSource source() const { return source_; }

 private:
  ElfFile elf_;
  DwarfPtr dwarf_;
  DebugSource source_;
};

struct DebugSearch {
  std::string debug_root = "/usr/lib/debug";
};

// The DWARF of `path`. Fails when the file cannot be read, or when no
// candidate holds DWARF; the message then lists what was looked for (the
// build-id path, the debuglink name and the directories searched, and
// candidates rejected for a wrong CRC or build-id).
Result<DebugInfo> find_debuginfo(const std::string& path, const DebugSearch& search = {});

// The .gnu_debuglink CRC-32 of a byte range, continued from crc (0 to start).
uint32_t debuglink_crc32(uint32_t crc, const unsigned char* data, size_t size);

// The build-id of an ELF file as lower-case hex; "" when it has none.
std::string elf_build_id(Elf* elf);

}  // namespace usdt::record
