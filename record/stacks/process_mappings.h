// The executable mappings of one traced process, as the stack recorder knows
// them: a snapshot of /proc/PID/maps at the start, then each PERF_RECORD_MMAP2.
// A frame's address is resolved against the mapping that holds it now, so a
// library unloaded and another mapped at the same address are told apart by
// when the frame was recorded (FORMAT.md, process event "mmap").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace usdt::record {

// One executable mapping: [start, end) of the file `path`, from byte
// file_offset of the file.
struct ExecMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t file_offset = 0;
  std::string path;      // as the kernel names it; "//anon" for anonymous code, "[vdso]"
  std::string build_id;  // hex, empty when unknown

  // The file offset of an address inside the mapping.
  uint64_t file_offset_of(uint64_t address) const { return address - start + file_offset; }
};

class ProcessMappings {
 public:
  // Adds a mapping; it replaces whatever part of earlier mappings it overlaps
  // (the kernel does not report unmaps). An empty range is ignored.
  void add(ExecMapping mapping);
  // The mapping holding address, or nullptr.
  const ExecMapping* find(uint64_t address) const;
  // All mappings, sorted by start, none overlapping.
  const std::vector<ExecMapping>& all() const { return mappings_; }
  // Changes with every change, to a number no other contents ever had (also
  // in other ProcessMappings), so that caches built from all() (the
  // unwinder's module list) know when to rebuild; a copy keeps it.
  uint64_t generation() const { return generation_; }
  void clear();

 private:
  std::vector<ExecMapping> mappings_;
  uint64_t generation_ = 0;
};

}  // namespace usdt::record
