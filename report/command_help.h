// The help texts of usdt-report: the overview, each command's explanation
// (printed above its options by --help) and the version line. docs/CLI.md
// and docs/man/usdt-report.1 say the same in more words; keep them in step.
#pragma once

#include <string>

#include "report/input/query.h"

namespace usdt::report {

std::string version_text();
const char* command_usage(Command command);
extern const char* const kMainUsage;

}  // namespace usdt::report
