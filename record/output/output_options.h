// The command-line options of the output (output_policy.h) for
// usdt-record's parser (record/record_options.cpp): declared here, read
// from the texts Boost collects, so that record_options.cpp only calls in.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/output/output_policy.h"

namespace usdt::record {

// The options' values as typed.
struct OutputTexts {
  std::string max_size, switch_output, max_files, flight_recorder, control, before, after,
      max_snapshots;
  std::vector<std::string> triggers;
};

// Adds --max-size, --switch-output, --max-files, --flight-recorder,
// --no-exit-snapshot, --control, --snapshot-on, --before, --after and
// --max-snapshots to desc.
void add_output_options(boost::program_options::options_description& desc, OutputTexts* texts);

// The options that take a value (to find where the traced command starts).
const std::vector<std::string>& output_value_options();

// The policy from what was given; a usage error when a value is bad.
Result<OutputPolicy> read_output_options(const boost::program_options::variables_map& vm,
                                         const OutputTexts& texts);

}  // namespace usdt::record
