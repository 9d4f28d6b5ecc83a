// summary's text output.
#pragma once

#include <string>

#include "report/input/trace_input.h"
#include "report/stats/summary_facts.h"

namespace usdt::report {

std::string summary_text(const SummaryFacts& facts, const TraceInput& input,
                         const SummaryPass& whole);

}  // namespace usdt::report
