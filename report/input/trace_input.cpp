#include "report/input/trace_input.h"

namespace usdt::report {

void TraceInput::compute_timeline() {
  hosts_differ_ = false;
  for (const TraceFileInfo& f : files_) {
    if (f.metadata.hostname != files_.front().metadata.hostname) hosts_differ_ = true;
  }
  bool first = true;
  for (TraceFileInfo& f : files_) {
    f.shift_ns = 0;
    if (hosts_differ_) {
      const format::TraceMetadata& a = files_.front().metadata;
      int64_t anchor0 = static_cast<int64_t>(a.start_realtime_ns - a.start_monotonic_ns);
      int64_t anchor = static_cast<int64_t>(f.metadata.start_realtime_ns - f.metadata.start_monotonic_ns);
      f.shift_ns = anchor - anchor0;
    }
    uint64_t start = f.metadata.start_monotonic_ns + static_cast<uint64_t>(f.shift_ns);
    if (first || start < timeline_start_) timeline_start_ = start;
    first = false;
  }
}

std::vector<uint32_t> file_domains(const TraceInput& input) {
  std::vector<uint32_t> out(input.files().size(), 0);
  if (input.hosts_differ()) {
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = i;
  }
  return out;
}

uint64_t realtime_of(const TraceInput& input, uint64_t time) {
  if (input.files().empty()) return 0;
  const format::TraceMetadata& m = input.files().front().metadata;
  return m.start_realtime_ns + (time - m.start_monotonic_ns);
}

}  // namespace usdt::report
