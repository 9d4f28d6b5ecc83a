// usdt-record's options as Boost.Program_options describes them: one table
// for the parser (record_options.cpp) and the --help text, so that the two
// cannot drift apart (tests/docs/man_options_test.sh holds the man page to
// the help).
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "record/live_fleet_options.h"
#include "record/output/output_options.h"
#include "record/record_options.h"

namespace usdt::record {

// The values that are checked after parsing, as typed: numbers (Boost would
// wrap "-1" into a uint32_t), probe specs (parsed once, into
// RecordOptions::probes), PID lists and --string lists.
struct OptionTexts {
  std::string duration, buffer_pages, stack_bytes, string_bytes, max_functions, call_graph, capture;
  std::vector<std::string> probes, pids, strings;
  OutputTexts output;  // --max-size, --switch-output, --flight-recorder, ...
  LiveFleetTexts live_fleet;  // --flush-interval, --hostname, --mount-ns-of
};

// The options, storing into o and texts (both must outlive the parse).
boost::program_options::options_description make_options(RecordOptions* o, OptionTexts* texts);

// Every option's spellings with their dashes ("--string", "-e"): what an
// unknown option is compared with for "did you mean".
std::vector<std::string> option_spellings();

}  // namespace usdt::record
