// Names the frames of recorded call stacks (format 1.3) from what the trace
// holds alone: the mmap process events say which file an address belonged
// to at the time, the object blocks give that file's symbols. The traced
// binaries are never opened, so a trace moved to another machine shows the
// same frames.
//
// Mappings are replayed per file and pid in record order (feed every
// process record to on_process): exec ends a process's mappings, a fork
// (tid == pid) starts the child with the parent's, an mmap replaces what it
// overlaps. Each change makes a new immutable MappingSet, so a consumer may
// keep the set that was current at an event's time (latency keeps it for
// open starts) and name the frames later; a library unloaded and another
// mapped at the same address then still resolve apart.
//
// Lookups: frame 0 is the ip at the hit, the others return addresses, whose
// call instruction is the byte before: those are looked up at address - 1.
// Offsets shown (in the symbol, in the file) are of the recorded address,
// as perf shows them. Results are cached per (mapping set, address, kind):
// big traces have millions of events but few distinct stacks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "report/input/trace_input.h"

namespace usdt::report {

// One named frame.
struct FrameSymbol {
  // The demangled function name; without a symbol "object+0xOFFSET" (the
  // file's base name and the address's offset in the file, as perf prints
  // it); without a mapping "[unknown]".
  std::string function;
  bool has_symbol = false;
  uint64_t symbol_offset = 0;  // of the address from the symbol's start (has_symbol)
  bool mapped = false;
  std::string object;        // the mapped file's path; "[unknown]" when not mapped
  uint64_t file_offset = 0;  // of the address in the file (mapped)

  // "function+0xOFF" with a symbol, else function.
  const std::string& label() const;

  // This frame as report/output/stack_text.cpp prints it (a text line, a JSON
  // object), made on first use: a frame is resolved once but printed for
  // every event that has it.
  mutable std::string text_cache;
  mutable std::string json_cache;

 private:
  mutable std::string label_cache_;
};

// The executable mappings of one process at one time; immutable once made.
struct MappingSet {
  struct Mapping {
    uint64_t start = 0;
    uint64_t end = 0;  // exclusive
    uint64_t file_offset = 0;
    uint32_t path = 0;    // index into the symbolizer's paths
    int32_t object = -1;  // index into the file's objects, -1 = no symbols
  };
  // Unique among all sets of all symbolizers of the process, >= 1: a stack
  // kept with the set of one symbolizer (a segment's) can be named by
  // another, whose cache is keyed by it.
  uint64_t generation = 0;
  uint32_t file = 0;              // the trace file
  std::vector<Mapping> mappings;  // sorted by start, not overlapping

  const Mapping* find(uint64_t address) const;
};
using MappingsRef = std::shared_ptr<const MappingSet>;

class StackSymbolizer {
 public:
  // files: the input's files, for their object blocks; kept by reference.
  explicit StackSymbolizer(const std::vector<TraceFileInfo>& files);
  // The mappings `other` has now (they are immutable: shared, not copied),
  // with a cache of its own: a segment's symbolizer that starts where
  // another, advanced through the process records before it, stands.
  StackSymbolizer(const StackSymbolizer& other);
  StackSymbolizer& operator=(const StackSymbolizer&) = delete;

  // Feed every process record of the input, in record order.
  void on_process(uint32_t file, const format::ProcessEvent& p);

  // The mappings of pid in file now; null when it has none.
  MappingsRef mappings(uint32_t file, uint32_t pid) const;
  // The same set, not kept: for a look-up per event (the last pid's answer
  // is remembered until the next process record).
  const MappingSet* current(uint32_t file, uint32_t pid) const {
    if (file != last_file_ || pid != last_pid_ || !last_valid_) {
      last_set_ = mappings(file, pid).get();
      last_file_ = file;
      last_pid_ = pid;
      last_valid_ = true;
    }
    return last_set_;
  }

  // Frame `index` of a stack (0: the ip at the hit) at address, against the
  // mappings (null: none). The reference stays valid for the symbolizer's life.
  const FrameSymbol& resolve(const MappingSet* mappings, uint64_t address, bool is_return);
  const FrameSymbol& resolve_frame(const MappingSet* mappings, const uint64_t* stack,
                                   size_t index) {
    return resolve(mappings, stack[index], index > 0);
  }

 private:
  struct CacheKey {
    uint64_t generation;
    uint64_t address;
    bool is_return;
    bool operator==(const CacheKey& o) const {
      return generation == o.generation && address == o.address && is_return == o.is_return;
    }
  };
  struct CacheHash {
    size_t operator()(const CacheKey& k) const {
      uint64_t h = k.address * 0x9e3779b97f4a7c15ull ^
                   (k.generation + (k.is_return ? 0x5555 : 0)) * 0xff51afd7ed558ccdull;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct FileObjects {
    std::unordered_map<std::string, int32_t> by_build_id;
    std::unordered_map<std::string, int32_t> by_path;  // blocks without a build-id first
  };

  int32_t object_for(uint32_t file, const format::ProcessEvent& p) const;
  uint32_t intern_path(const std::string& path);
  FrameSymbol name_frame(const MappingSet* mappings, uint64_t address, bool is_return) const;

  const std::vector<TraceFileInfo>& files_;
  std::vector<FileObjects> objects_;                                // per file
  std::vector<std::unordered_map<uint32_t, MappingsRef>> current_;  // per file: pid -> set
  std::vector<std::string> paths_;
  std::unordered_map<std::string, uint32_t> path_index_;
  std::unordered_map<CacheKey, std::unique_ptr<FrameSymbol>, CacheHash> cache_;
  // current()'s last answer; the sets stay alive in current_ while valid.
  mutable const MappingSet* last_set_ = nullptr;
  mutable uint32_t last_file_ = 0, last_pid_ = 0;
  mutable bool last_valid_ = false;
};

}  // namespace usdt::report
