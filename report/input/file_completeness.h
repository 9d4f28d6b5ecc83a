// Up to when a damaged input file's events are complete, per CPU
// (formats/completeness.h): what a report says instead of "the events
// before the cut", which they are not (chunks overlap in time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/completeness.h"
#include "report/input/trace_input.h"

namespace usdt::report {

struct FileCompleteness {
  uint32_t file = 0;
  // nullopt when the file could not be opened again to find out.
  std::optional<format::Completeness> completeness;
};

// Whether the reading of a file found damage: truncated, chunks skipped,
// bytes skipped.
bool file_damaged(const TraceFileInfo& file);

// The damaged files' completeness, in file order. Each damaged file is
// opened again and its chunks read once more, in file order.
std::vector<FileCompleteness> damaged_files(const TraceInput& input);

// "events after +1.234567890 s are incomplete" (relative to the input's
// timeline start), "events may be missing at any time (CPU 3 has events
// only after the damage)", or, without completeness, "events may be
// missing (up to when is unknown)".
std::string incomplete_text(const TraceInput& input, const FileCompleteness& f);

// "CPU 0 up to +1.234567890 s, CPU 1 up to +1.456789012 s, CPU 3 none
// before the damage"; empty without completeness.
std::string cpus_text(const TraceInput& input, const FileCompleteness& f);

// The earliest time (timeline) after which events of some damaged file may
// be missing; nullopt when none is damaged or some file's time is unknown.
std::optional<uint64_t> earliest_incomplete(const TraceInput& input,
                                            const std::vector<FileCompleteness>& files);

}  // namespace usdt::report
