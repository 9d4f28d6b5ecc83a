// The report commands (one file each). Each reads the input once, prints
// to io.out (errors and warnings to io.err) and returns the exit code:
// 0 done, 1 failure (e.g. an unknown probe, a write error), 2 misuse: options
// that parse_command_line refuses already (a bad --format, hist without
// --probe/--arg, export without -o); the commands check them again for
// callers that fill ReportOptions themselves.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/result.h"
#include "report/input/event_filter.h"
#include "report/report_options.h"
#include "report/input/trace_input.h"

namespace usdt::report {

struct CommandIo {
  std::FILE* out = stdout;
  std::FILE* err = stderr;
};

int run_summary(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_dump(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_hist(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_export(const ReportOptions& options, TraceInput& input, CommandIo io);
int run_stacks(const ReportOptions& options, TraceInput& input, CommandIo io);

// Dispatches on options.command.
int run_command(const ReportOptions& options, TraceInput& input, CommandIo io);

// --- shared by the commands ---

void print_error(std::FILE* err, const std::string& message);
void print_warning(std::FILE* err, const std::string& message);

// The key domain of each file: its index when hosts differ, else 0.
std::vector<uint32_t> file_domains(const TraceInput& input);

// Compiles the common filters and hands each reader its site hint.
// reads_arguments false: the command looks at no event's arguments, which
// the readers then leave undecoded (EventFilter::set_reads_arguments).
Result<EventFilter> make_filter(const ReportOptions& options, TraceInput& input,
                                bool reads_arguments = true);

// The reader hint make_filter gives a file.
format::ReadFilter file_read_filter(const EventFilter& filter, const TraceInput& input,
                                    uint32_t file);

// Narrows the readers' site hint to the sites a command looks at (e.g.
// latency's start and end sites among those the filter selects), so that
// chunks without them are not even decompressed.
void narrow_read_filter(const EventFilter& filter, const std::vector<uint8_t>& wanted_sites, TraceInput& input);

// After reading: one warning per problem a file had (truncation, corrupted
// chunks, skipped records).
void report_read_problems(const TraceInput& input, std::FILE* err);

// CLOCK_REALTIME of a timeline time, through the first file's anchor.
uint64_t realtime_of(const TraceInput& input, uint64_t time);

// "2026-11-29 10:00:00.000000000 UTC"
std::string wall_clock_text(uint64_t realtime_ns);

// Global sites of the probes a pattern selects (start/end/hist probes);
// fails with the probes the trace has.
Result<std::vector<uint32_t>> sites_matching(const ProbeCatalog& catalog, const std::string& pattern);

// An argument given by name must name an argument of at least one of the
// sites (global indexes) a command reads; fails with the names they have.
Status check_arg_name(const ArgRef& arg, const ProbeCatalog& catalog, const std::vector<uint32_t>& sites,
                      const char* option);

}  // namespace usdt::report
