// The output a recording's options ask for (output_policy.h): one file
// (file_sink.h), a series (series_sink.h) or a flight recorder
// (flight_sink.h). Made before anything is attached, so that an unwritable
// place fails first.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/trace_writer.h"
#include "record/output/output_policy.h"
#include "record/output/trace_sink.h"

namespace usdt::record {

Result<std::unique_ptr<TraceSink>> make_sink(const OutputPolicy& policy, const std::string& output,
                                             const format::TraceMetadata& metadata,
                                             const std::vector<format::ProbeSite>& sites,
                                             const format::WriterOptions& writer_options,
                                             std::function<void()> snapshot_hold = {});

}  // namespace usdt::record
