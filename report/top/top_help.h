// The --help text of usdt-report top (report/command_help.cpp shows it).
#pragma once

namespace usdt::report {

const char* top_usage();

}  // namespace usdt::report
