// usdt-report's entry point behind main(): parses the command line, opens
// the traces and runs the command. Returns the process exit code.
#pragma once

#include <cstdio>

namespace usdt::report {

int report_main(int argc, const char* const* argv, std::FILE* out, std::FILE* err);

}  // namespace usdt::report
