// The code a traced process has mapped, as libdwfl modules: the unwinder
// finds the CFI (.eh_frame / .debug_frame) of an address through them.
//
// Each executable mapping of a file becomes one module, reported with the
// load bias its mapping implies: the PT_LOAD segment holding the mapping's
// file offset gives the link-time address of the mapping's first byte, and
// bias = start - that address (0 for ET_EXEC). Files are opened once per
// process (libdwfl keeps the Elf and the parsed CFI); the layouts are
// computed once per file and shared by all processes.
//
// Files are opened through /proc/PID/root (a process in a container sees its
// own files), else by their path, else through the mapping itself
// (/proc/PID/map_files/START-END: a memfd, a file deleted since).
// "[vdso]" has no file: its image is read once from /proc/PID/mem and handed
// to libdwfl through a memfd. Anonymous code ("//anon", JIT) and files that
// cannot be opened get no module: a walk reaching them stops there.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/stacks/process_mappings.h"

namespace usdt::record {

struct DwflDeleter {
  void operator()(Dwfl* dwfl) const { dwfl_end(dwfl); }
};
using DwflPtr = std::unique_ptr<Dwfl, DwflDeleter>;

// Where an ELF image's loadable segments are, at link time.
struct ElfLoadLayout {
  struct Segment {
    uint64_t vaddr = 0;
    uint64_t offset = 0;
    uint64_t filesz = 0;
  };
  bool is_exec = false;        // ET_EXEC: loaded at its link-time addresses
  std::vector<Segment> loads;  // PT_LOAD, in file order
  uint64_t low = 0;            // first PT_LOAD's vaddr, page-aligned down
  uint64_t high = 0;           // end of the last PT_LOAD in memory

  // The bias of a mapping of file_offset at start; nullopt when no segment
  // holds file_offset or the result is impossible (ET_EXEC moved).
  std::optional<uint64_t> bias_of(uint64_t start, uint64_t file_offset) const;
};

// The layout of an ELF image; nullopt when it is not a readable ELF file.
std::optional<ElfLoadLayout> read_load_layout(Elf* elf);

// Layouts of files by path and build-id (path and inode/mtime when the
// build-id is unknown), shared by the processes of one recording. A file
// that opens but has no usable layout is remembered as such; one that does
// not open is not, since the failure belongs to open_path, not to the file:
// a process's /proc/PID/root vanishes when it exits, while the plain path
// of the same file (the same key) still reads.
class LoadLayoutCache {
 public:
  // The layout of mapping's file, read from open_path; nullptr when the
  // file cannot be opened there or is not ELF.
  const ElfLoadLayout* find(const ExecMapping& mapping, const std::string& open_path);

 private:
  std::map<std::string, std::optional<ElfLoadLayout>> layouts_;
};

class UnwindModules {
 public:
  explicit UnwindModules(uint32_t pid) : pid_(pid) {}

  enum class Change {
    none,     // the modules were up to date
    added,    // modules were added to the same Dwfl
    rebuilt,  // a new Dwfl (a mapping went away or moved): attach again
  };
  // Brings the modules in line with maps (a no-op while maps and its
  // generation are the ones seen last). Files that cannot be read are left
  // out; never fails otherwise. dwfl() may be null afterwards (libdwfl out
  // of memory).
  Change sync(const ProcessMappings& maps, LoadLayoutCache& layouts);

  Dwfl* dwfl() const { return dwfl_.get(); }
  // How many modules are reported (for tests).
  size_t module_count() const { return reported_.size(); }

 private:
  struct Module {
    std::string path;
    uint64_t bias = 0;
    uint64_t low = 0;  // runtime range the module covers
    uint64_t high = 0;
    std::string file;  // where to read it (open_path()); not part of its identity
    std::string build_id;  // the mapping's (hex, may be empty); not part of its identity
    bool operator==(const Module& o) const {
      return path == o.path && bias == o.bias && low == o.low && high == o.high;
    }
  };

  std::vector<Module> wanted_modules(const ProcessMappings& maps, LoadLayoutCache& layouts);
  bool report(const Module& module);
  std::string open_path(const ExecMapping& mapping) const;
  const std::vector<uint8_t>* vdso_image(const ExecMapping& mapping);

  uint32_t pid_;
  DwflPtr dwfl_;
  std::vector<Module> reported_;
  const ProcessMappings* maps_seen_ = nullptr;
  uint64_t generation_seen_ = 0;
  bool vdso_tried_ = false;
  std::vector<uint8_t> vdso_;
  std::optional<ElfLoadLayout> vdso_layout_;
};

}  // namespace usdt::record
