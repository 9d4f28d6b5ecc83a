// Where a report command writes: its output, and its diagnostics in the
// form every usdt-report message has ("usdt-report: error: ...", one line,
// lower-case, no final period).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/result.h"

namespace usdt::report {

struct CommandIo {
  std::FILE* out = stdout;
  std::FILE* err = stderr;
};

void print_error(std::FILE* err, const std::string& message);
void print_warning(std::FILE* err, const std::string& message);
// One warning line per message (a pass's read problems).
void print_warnings(std::FILE* err, const std::vector<std::string>& messages);

// The error printed; the exit code of a command that could do nothing (1).
int command_failed(CommandIo io, const Error& error);

}  // namespace usdt::report
