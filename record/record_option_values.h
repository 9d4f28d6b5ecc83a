// The values of usdt-record's options that are read from their text: PIDs,
// --string specs, counts and --duration (parse_record_options' helpers).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/record_options.h"

namespace usdt::record {

// The PIDs of -p values, each a comma-separated list.
Result<std::vector<pid_t>> parse_pids(const std::vector<std::string>& values);
// "postgresql:query__start=arg0,arg2" -> the pattern and the argument mask;
// "uprobe:./server:work=query" -> the pattern and a parameter name.
Result<StringArgs> parse_string_args(const std::string& value);
// A whole unsigned decimal number up to max, or an error naming the option
// and the value as the user typed it.
Result<uint32_t> parse_count(const std::string& option, const std::string& text, uint32_t max);
// --duration's seconds: above 0, at most ten years.
Result<double> parse_duration(const std::string& text);

}  // namespace usdt::record
