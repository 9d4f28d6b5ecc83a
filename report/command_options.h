// The options of each usdt-report command, as Boost.Program_options
// descriptions, and the checks of the options of flamegraph, heatmap, html
// and top (report/command_line.cpp parses and checks the rest).
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "report/input/query.h"

namespace usdt::report {

// The option values as given, before they are checked.
struct RawOptions {
  std::string format;
  std::vector<std::string> probes;
  std::string pid, tid, since, until, key = "tid", by, hist = "log2", linear, top, slowest, arg,
                                      function, jobs, interval, max_memory;
  std::vector<std::string> starts, ends;  // top: several pairs
};

boost::program_options::options_description common_options(RawOptions& raw);
boost::program_options::options_description command_options(Command c, RawOptions& raw,
                                                            ReportOptions& o);

// --reverse, --diff, and what flamegraph, heatmap and html need.
Status check_pictures(const RawOptions& raw, const boost::program_options::variables_map& vm,
                      ReportOptions& o);

// top's pairs, --interval and --once; --follow.
Status check_live(const RawOptions& raw, const boost::program_options::variables_map& vm,
                  ReportOptions& o);

}  // namespace usdt::report
