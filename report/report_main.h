// usdt-report's entry point behind main(): parses the command line, opens
// the traces and runs the command (report/<command>/). The dependencies
// run one way: this file and command_line.* use every command's folder;
// the commands use input/, symbols/, stats/, pairing/ and output/, never
// each other (docs/architecture.md).
#pragma once

#include <cstdio>

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the process exit code.
int report_main(int argc, const char* const* argv, std::FILE* out, std::FILE* err);

// Runs options.command on the input. Each command reads the input once,
// prints to io.out (errors and warnings to io.err) and returns the exit
// code: 0 done, 1 failure (e.g. an unknown probe, a write error), 2 misuse:
// options that parse_command_line refuses already (a bad --format, hist
// without --probe/--arg, export without -o), checked again for callers that
// fill ReportOptions themselves.
int run_command(const ReportOptions& options, TraceInput& input, CommandIo io);

}  // namespace usdt::report
