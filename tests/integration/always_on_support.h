// Helpers for the always-on tests (series, flight recorder, triggers): the
// files a recording wrote, waiting for one to appear, its metadata.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::itest {

// A fresh directory for a case's files (under the case's TMPDIR).
std::string temp_dir(const std::string& name);
// The regular files of dir whose names end with suffix, sorted.
std::vector<std::string> files_in(const std::string& dir, const std::string& suffix);
// Waits until path exists (the recorder renames a file into place once it
// is complete); false after the timeout.
bool wait_for_file(const std::string& path,
                   std::chrono::seconds timeout = std::chrono::seconds(120));
// The metadata of a trace file (the test fails when it cannot be read).
format::TraceMetadata metadata_of(const std::string& path);
// The first argument of every event of provider:name in the files, sorted.
std::vector<uint64_t> first_args(const std::vector<std::string>& files, const std::string& provider,
                                 const std::string& name);
// usdt-report with these arguments; its stdout (the test fails unless it
// exits 0).
std::string report_out(const std::vector<std::string>& args);
// The number after key in JSON text ("\"count\":" -> 123), -1 when absent.
int64_t json_number(const std::string& json, const std::string& key, size_t from = 0);

}  // namespace usdt::itest
