// What usdt-record's end report says of a flight recorder (flight_sink.h):
// the snapshots written (what asked for each, its window, its events), what
// the ring held at the end and what it overwrote before any snapshot saved
// it, by cause, and for each trigger how often it fired, took a snapshot
// or was suppressed, and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record/output/flight_ring.h"
#include "record/output/output_policy.h"
#include "record/output/series_naming.h"
#include "record/output/snapshot_writer.h"
#include "record/output/trace_sink.h"

namespace usdt::record {

struct FlightFigures {
  const OutputPolicy* policy = nullptr;
  const SeriesNaming* naming = nullptr;
  const FlightRing* ring = nullptr;
  const std::vector<SnapshotDone>* done = nullptr;
  uint32_t deleted = 0;
  const std::vector<uint64_t>* fired = nullptr;  // per trigger
  const std::vector<uint64_t>* taken = nullptr;
  const std::vector<uint64_t>* suppressed_limit = nullptr;
  const std::vector<uint64_t>* suppressed_busy = nullptr;
  uint64_t enabled_ns = 0;             // "+0 s" of the windows
  std::vector<std::string> unmatched;  // triggers whose probes matched no site
};

OutputReport flight_report(const FlightFigures& f);

// "64M" style text of a byte count the user gave (whole KiB, MiB, GiB), else bytes.
std::string size_text(uint64_t bytes);
// "30s", "1.5s", "250ms" of a duration.
std::string duration_text(uint64_t ns);

}  // namespace usdt::record
