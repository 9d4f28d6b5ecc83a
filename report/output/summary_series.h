// What `usdt-report summary` says of a file that is one of several of its
// recording (format 1.7, FORMAT.md 3.3.1): the part of a series it is, or
// the snapshot, with its window, what asked for it and the event that
// fired its trigger.
#pragma once

#include <cstdint>
#include <string>

#include "report/input/trace_input.h"
#include "report/output/json_writer.h"

namespace usdt::report {

// Indented lines for the text output ("" for a whole recording).
std::string series_text(const TraceInput& input, uint32_t file);
// The "series" member of a file in the JSON output (nothing for a whole
// recording).
void write_series_json(JsonWriter& w, const TraceInput& input, uint32_t file);

}  // namespace usdt::report
