// usdt-report summary: what the trace holds, counted from the records read;
// and, from the files' own summaries, the samples the recorder dropped
// itself by cause (malformed records, foreign processes, ...), which are in
// no chunk: text prints the non-zero ones on one line, JSON always has
// "dropped":{cause:count} ({} when none, or for 1.0 files). JSON lists each
// probe's arguments ("args":[{"name":"arg0","type":"int32"}]) as its first
// site describes them.
//
// A probe attached during the recording (format 1.4: a library dlopen()ed
// after the start) has no events before it was attached, called or not: text
// says when under its count line, JSON in "active_since_ns" (the timeline's
// clock, as "start_ns"); when only some of its sites were attached late,
// "late_sites" and "late_sites_since_ns" (the earliest of them). The rate of
// a probe whose sites were all attached late counts from then.
#pragma once

#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/output/command_io.h"

namespace usdt::report {

// Returns the exit code: 0 done, 1 failure (an unknown probe, a write error).
int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io);
// summary --follow: the trace (one) read while it is written; on a terminal
// the summary of what it holds so far every --interval, at the end of the
// recording the summary of the whole (the only output elsewhere).
int run_summary_follow(const ReportOptions& options, CommandIo io);

}  // namespace usdt::report
