// Up to when a damaged trace's events are complete (formats/FORMAT.md,
// section 6, "Completeness").
//
// A reader of a file cut short, or with damaged chunks, returns the events
// of the intact chunks. They are not a prefix in time: chunks overlap in
// time (each CPU's ring buffer drains at its own moment), so a lost chunk
// can hold events older than the last ones returned. What the writer does
// promise is that each CPU's events reach the file in time order (section
// 7). So the intact chunks before the first damage, in file order, hold
// every event of a CPU up to the last of that CPU's events they hold, and
// events of any CPU are complete up to the earliest of those times.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "formats/file_layout.h"

namespace usdt::format {

struct ReaderState;

struct CpuCompleteness {
  uint32_t cpu = 0;
  // Every event of this CPU up to this time (CLOCK_MONOTONIC) is in the
  // file; nullopt: the CPU has no event before the damage, so its events may
  // be missing at any time.
  std::optional<uint64_t> complete_until_ns;
};

struct Completeness {
  // Nothing is missing: the file is not truncated, no chunk or bytes of it
  // were skipped.
  bool complete = true;
  // Each CPU that has events in the intact chunks, by CPU number.
  std::vector<CpuCompleteness> cpus;
  // The time after which events of the CPUs that have one may be missing:
  // the earliest of their times (nullopt when complete, or when no event
  // comes before the damage). The events of a CPU without a time may be
  // missing at any time, besides.
  std::optional<uint64_t> incomplete_after_ns;
  // Where, in file order, the first damage is: the offset of the first chunk
  // that failed, or the end of the last intact chunk of a truncated file.
  uint64_t damage_offset = 0;
};

// Reads the chunks (in file order, every column checked, as the strictest
// command reads them) up to the first damage. chunks: as located, in file
// order; truncated and skipped_at (offsets where blocks were skipped) as the
// reader's diagnostics say. Each chunk is loaded once and dropped: memory
// stays that of one chunk.
Completeness scan_completeness(const ReaderState& st, const std::vector<IndexEntry>& chunks);

}  // namespace usdt::format
