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

#include "common/probe_spec.h"
#include "common/result.h"
#include "record/attach/tracepoint_format.h"

namespace usdt::record {

struct Tracepoint {
  std::string subsystem;
  std::string event;
  TracepointFormat format;
};

// The tracepoints under tracefs_dir/events that a tracepoint spec
// (ProbeKind::tracepoint: provider the subsystem, name the event, either with
// wildcards) matches, sorted by subsystem then event. Fails when none matches
// or a format cannot be read.
Result<std::vector<Tracepoint>> find_tracepoints(const std::string& tracefs_dir, const ProbeSpec& spec);

}  // namespace usdt::record
