// The USDT probes of one ELF file, read from its .note.stapsdt section.
//
// Each note (owner "stapsdt", type 3) holds three addresses of the file's
// word size: the probe's pc, the link-time address of .stapsdt.base, and the
// semaphore's address (0 = none); then three NUL-terminated strings: provider,
// name and the argument string. If prelink moved the file, the runtime
// .stapsdt.base section address differs from the note's base, and pc and
// semaphore must be shifted by that difference (SystemTap SDT note
// description). A uprobe is placed by file offset, not address: the address is
// mapped to the offset of the loadable segment (PT_LOAD) that contains it;
// the semaphore likewise (for the kernel's ref_ctr_offset).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/arg_spec.h"
#include "common/result.h"

namespace usdt {

// One place in the file where a probe fires.
struct UsdtLocation {
  uint64_t address = 0;            // virtual address of the probe (prelink-adjusted)
  uint64_t file_offset = 0;        // the uprobe's offset (perf_event_attr::config2)
  uint64_t semaphore_address = 0;  // 0 when the probe has no semaphore
  uint64_t semaphore_offset = 0;   // file offset of the semaphore (ref_ctr_offset), 0 = none
  uint64_t base = 0;               // the note's .stapsdt.base address
  std::string args_text;           // the note's argument string, verbatim
  std::vector<ArgSpec> args;
};

// A provider:name pair with all its locations (PostgreSQL's
// lwlock__wait__start has three, each may have its own semaphore and specs).
struct UsdtProbe {
  std::string provider;
  std::string name;
  std::vector<UsdtLocation> locations;
};

// The probes of one file, in note order (first location of each probe).
struct UsdtFile {
  std::string path;       // the file as the user or /proc/PID/maps names it
  std::string open_path;  // the path actually opened (e.g. via /proc/PID/root)
  std::string build_id;   // hex of NT_GNU_BUILD_ID, empty if none
  Arch arch = Arch::x86_64;
  std::vector<UsdtProbe> probes;
};

// Reads every stapsdt note of the file at open_path. A file without notes is
// a success with no probes. Fails, naming the file, when it is missing,
// unreadable, not an ELF file, or a note is malformed (truncated, address
// outside every loadable segment). display_path defaults to open_path.
Result<UsdtFile> read_usdt_file(const std::string& open_path,
                                const std::string& display_path = "");

}  // namespace usdt
