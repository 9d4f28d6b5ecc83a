// The sites a command's own options name (latency's --start/--end, hist's
// --arg): which global sites a probe pattern selects, and whether an
// argument given by name exists there. Both fail with what the trace has,
// so that a misspelt name gets a useful message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"

namespace usdt::report {

// Global sites of the probes a pattern selects; fails with the probes the
// trace has ("did you mean").
Result<std::vector<uint32_t>> sites_matching(const ProbeCatalog& catalog, const std::string& pattern);

// An argument given by name must name an argument of at least one of the
// sites (global indexes) a command reads; fails with the names they have.
Status check_arg_name(const ArgRef& arg, const ProbeCatalog& catalog, const std::vector<uint32_t>& sites,
                      const char* option);

}  // namespace usdt::report
