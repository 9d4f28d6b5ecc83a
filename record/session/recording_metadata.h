// The facts written once at the start of a trace (formats/trace_types.h
// TraceMetadata): host, kernel, architecture, page size, the recorder's own
// command line and version, both clocks at one moment, the CPUs.
#pragma once

#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::record {

// The clock in nanoseconds.
uint64_t clock_ns(clockid_t clock);

// Fills the metadata of a recording starting now, on the CPUs whose ring
// buffers it reads; hostname: the host label to store (usdt-record
// --hostname), empty for uname -n.
format::TraceMetadata make_metadata(const std::vector<int>& cpus, const std::string& hostname = {});

}  // namespace usdt::record
