// The values of usdt-record's options, from the text the user typed: PID
// lists, --string PROBE=ARG lists, counts and durations. Each failure is a
// usage error naming the option and the value as typed (main exits 2).
// Boost reads "-1" into a uint32_t as 4294967295 and "1e30" or "nan" into a
// double without a word, so the numbers are taken as text and converted here.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/record_options.h"

namespace usdt::record {

// -p PID[,PID...], each value possibly a list; PIDs from 1 to 2^31-1.
Result<std::vector<pid_t>> parse_pids(const std::vector<std::string>& values);

// "postgresql:query__start=arg0,arg2" -> the pattern and the argument mask;
// "uprobe:./server:work=query" -> the pattern and a parameter name.
Result<StringArgs> parse_string_args(const std::string& value);

// A whole unsigned decimal number up to max.
Result<uint32_t> parse_count(const std::string& option, const std::string& text, uint32_t max);

// --duration SECONDS: above 0, at most ten years (the recording timer needs
// whole seconds in a time_t).
Result<double> parse_duration(const std::string& text);

// --capture bpf|sample|auto.
Result<CaptureMode> parse_capture_mode(const std::string& text);

}  // namespace usdt::record
