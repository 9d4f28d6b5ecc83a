// Running a recording: attach the probes of RecordOptions, start or follow the
// processes, write the trace file. Implemented by the recording session.
#pragma once

#include "record/record_options.h"

namespace usdt::record {

// Records until the traced processes exit, --duration passes, or SIGINT /
// SIGTERM arrives. Prints its own errors; returns the exit status.
int run_record_command(const RecordOptions& options);

}  // namespace usdt::record
