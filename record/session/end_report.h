// The lines usdt-record prints to stderr when a recording ends: totals, the
// file, and per probe its hits and hits per second, so users see at once
// which probe is hot and what it costs them.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::record {

struct EndReport {
  std::string output;  // -o
  // Where the bytes went ("to x.trace", "to 3 files x.0005.trace ..
  // x.0007.trace"), and what the output says besides (output/trace_sink.h).
  std::string where;
  std::vector<std::string> output_lines;
  uint64_t events = 0;
  uint64_t lost = 0;
  uint64_t bytes = 0;
  // A write error stopped the recording before every event reached the
  // file: events_in_file of the events are in it (the chunks written whole
  // before the error).
  bool write_failed = false;
  uint64_t events_in_file = 0;
  double seconds = 0;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC of the start and of the end: a probe
  uint64_t end_ns = 0;    // attached later (ProbeSite::active_since_ns) counts its rate from then
  std::vector<format::ProbeSite> sites;
  std::vector<uint64_t> events_per_site;
  std::vector<uint64_t> lost_per_site;
  std::vector<std::pair<std::string, uint64_t>> dropped;  // by the recorder, by cause
  // What lost counts, by cause ("the BPF ring was full"); zero counts unsaid.
  std::vector<std::pair<std::string, uint64_t>> lost_by_cause;
  // The window before the probes were armed (FORMAT.md 3.6.1): from the
  // recording's start (the file's start_monotonic_ns) to the last event
  // enabled, of which attach_wait_ns waiting for other recordings' clean-up.
  // With a COMMAND nothing ran before (it starts after).
  uint64_t file_start_ns = 0;
  uint64_t armed_ns = 0;
  uint64_t attach_wait_ns = 0;
  bool command = false;
  bool call_stacks = false;     // -g: say how many events carry a stack
  uint64_t stacks = 0;          // events with a stack
  uint64_t truncated_stacks = 0;
};

// Prints the report; probes (provider:name) sum their sites, in site order.
void print_end_report(const EndReport& report, std::ostream& out);

}  // namespace usdt::record
