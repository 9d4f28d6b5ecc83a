// The metadata of one file of a recording that writes several
// (formats/FORMAT.md 3.3.1): the recording's, with the file's role, number
// and carried names' time, and its start anchor moved to the file's own
// start (the earliest time it holds) on the recording's clock pair, so
// that every file of one recording places its times alike.
#pragma once

#include <cstdint>

#include "formats/trace_types.h"

namespace usdt::record {

inline format::TraceMetadata file_metadata(const format::TraceMetadata& recording,
                                           format::SeriesInfo series, uint64_t file_start_ns) {
  format::TraceMetadata m = recording;
  if (file_start_ns != 0 && file_start_ns != recording.start_monotonic_ns) {
    m.start_monotonic_ns = file_start_ns;
    m.start_realtime_ns =
        recording.start_realtime_ns + (file_start_ns - recording.start_monotonic_ns);
  }
  m.series = std::move(series);
  return m;
}

}  // namespace usdt::record
