// Kernel tracepoints by name: `tracepoint:SUBSYS:EVENT` specs (wildcards '*'
// and '?' in both parts) matched against the directories of tracefs's
// events/ (events/SUBSYS/EVENT/{id,format}), each match with its parsed
// format (record/attach/tracepoint_format.h).
//
// Bad input gets one line each, naming the spec and what to do: a spec of
// the wrong shape, a tracepoint or subsystem that does not exist (with the
// `ls` that shows what does), a wildcard that matches nothing, a format that
// cannot be read (no permission) or parsed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "record/attach/tracepoint_format.h"

namespace usdt::record {

struct TracepointSpec {
  std::string text;       // as written
  std::string subsystem;  // may hold wildcards
  std::string event;      // may hold wildcards
};

struct Tracepoint {
  std::string subsystem;
  std::string event;
  TracepointFormat format;
};

// Whether text names a tracepoint ("tracepoint:..."), well formed or not.
bool is_tracepoint_spec(std::string_view text);

// Parses "tracepoint:SUBSYS:EVENT"; fails saying which form is expected.
Result<TracepointSpec> parse_tracepoint_spec(std::string_view text);

// The tracepoints under tracefs_dir/events that spec matches, sorted by
// subsystem then event. Fails when none matches or a format cannot be read.
Result<std::vector<Tracepoint>> find_tracepoints(const std::string& tracefs_dir,
                                                 const TracepointSpec& spec);

}  // namespace usdt::record
