#include "report/input/file_completeness.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "formats/trace_reader.h"

namespace usdt::report {
namespace {

// "+S.NNNNNNNNN s" of a file's time on the timeline.
std::string relative_text(const TraceInput& input, const TraceFileInfo& f, uint64_t file_ns) {
  const uint64_t time = static_cast<uint64_t>(static_cast<int64_t>(file_ns) + f.shift_ns);
  const uint64_t rel = time >= input.timeline_start() ? time - input.timeline_start() : 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "+%" PRIu64 ".%09" PRIu64 " s", rel / 1000000000u,
                rel % 1000000000u);
  return buf;
}

// "cut" for a file cut short, "damage" for damaged chunks or bytes.
std::string damage_word(const TraceFileInfo& f) {
  const format::ReadDiagnostics& d = f.diagnostics;
  return d.truncated && d.chunks_bad == 0 && d.skipped_at.empty() ? "cut" : "damage";
}

}  // namespace

bool file_damaged(const TraceFileInfo& file) {
  const format::ReadDiagnostics& d = file.diagnostics;
  return d.truncated || d.chunks_bad > 0 || !d.skipped_at.empty();
}

std::vector<FileCompleteness> damaged_files(const TraceInput& input) {
  std::vector<FileCompleteness> out;
  for (uint32_t i = 0; i < input.files().size(); ++i) {
    const TraceFileInfo& f = input.files()[i];
    if (!file_damaged(f)) continue;
    FileCompleteness fc{i, std::nullopt};
    if (Result<format::TraceReader> reader = format::TraceReader::open(f.path)) {
      fc.completeness = reader->completeness();
    }
    out.push_back(std::move(fc));
  }
  return out;
}

std::string incomplete_text(const TraceInput& input, const FileCompleteness& f) {
  if (!f.completeness) return "events may be missing (up to when is unknown)";
  const format::Completeness& c = *f.completeness;
  std::string without;  // the CPUs without a time: "CPU 1", "CPUs 1, 3"
  size_t n = 0;
  for (const format::CpuCompleteness& cpu : c.cpus) {
    if (cpu.complete_until_ns) continue;
    without += (n++ == 0 ? "" : ", ") + std::to_string(cpu.cpu);
  }
  without = (n == 1 ? "CPU " : "CPUs ") + without;
  const std::string damage = damage_word(input.files()[f.file]);
  if (!c.incomplete_after_ns) {
    return "events may be missing at any time (no event comes before the " + damage + ")";
  }
  std::string text = "events after " +
                     relative_text(input, input.files()[f.file], *c.incomplete_after_ns) +
                     " are incomplete";
  if (n > 0)
    text += ", and " + without + " may miss events at any time (none of " +
            (n == 1 ? "its" : "their") + " events comes before the " + damage + ")";
  return text;
}

std::string cpus_text(const TraceInput& input, const FileCompleteness& f) {
  if (!f.completeness) return "";
  std::string text;
  for (const format::CpuCompleteness& cpu : f.completeness->cpus) {
    if (!text.empty()) text += ", ";
    text += "CPU " + std::to_string(cpu.cpu) + " ";
    text += cpu.complete_until_ns
                ? "up to " + relative_text(input, input.files()[f.file], *cpu.complete_until_ns)
                : "none before the " + damage_word(input.files()[f.file]);
  }
  return text;
}

std::optional<uint64_t> earliest_incomplete(const TraceInput& input,
                                            const std::vector<FileCompleteness>& files) {
  std::optional<uint64_t> earliest;
  for (const FileCompleteness& f : files) {
    if (!f.completeness || !f.completeness->incomplete_after_ns) return std::nullopt;
    const int64_t shift = input.files()[f.file].shift_ns;
    const uint64_t t =
        static_cast<uint64_t>(static_cast<int64_t>(*f.completeness->incomplete_after_ns) + shift);
    earliest = earliest ? std::min(*earliest, t) : t;
  }
  return earliest;
}

}  // namespace usdt::report
