// usdt-report top TRACE: a live view of a recording in progress. Every
// second (--interval) a screen of the events per second of each probe, the
// events lost per second and, for each --start/--end pair, the pairs per
// second with their p50, p99 and maximum duration, in the last whole second
// of the recording the file holds, with the counts since the start; until
// the recording ends (the file gets its end), or one screen (--once).
#pragma once

#include "report/input/query.h"
#include "report/output/command_io.h"

namespace usdt::report {

int run_top(const ReportOptions& options, CommandIo io);

}  // namespace usdt::report
