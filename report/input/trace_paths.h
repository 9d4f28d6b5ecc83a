// The trace files the command line names: a file as it is; a directory
// for the trace files in it (NAME.trace, such as the parts or snapshots a
// recording wrote there; not the .partial files still being written), in
// name order; a quoted pattern with * ? or [ that is no file's name for the
// files it matches (glob(3)), in name order.
#pragma once

#include <string>
#include <vector>

namespace usdt::report {

// The paths to open; a directory without trace files, or a pattern that
// matches nothing, is kept as it is (opening it then says why it is no
// trace).
std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args);

}  // namespace usdt::report
