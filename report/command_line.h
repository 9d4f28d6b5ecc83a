// The command line of usdt-report (docs/CLI.md) into ReportOptions. Parsing uses
// Boost.Program_options; its exceptions are caught inside and become usage
// errors, so callers only see values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "report/input/query.h"

namespace usdt::report {

// What parsing decided: run, or stop with text already decided (help,
// version: exit 0; usage error: exit 2, message on stderr), or print the
// ClickHouse schema (export --schema, exit 0).
struct ParsedCommandLine {
  enum class Action { run, print_and_exit, print_schema } action = Action::run;
  ReportOptions options;
  std::string text;  // for print_and_exit: what to print
  int exit_code = 0;
  bool to_stderr = false;
};

ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace usdt::report
