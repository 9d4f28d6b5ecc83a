// The questions a report command answers, as plain values: which records
// (FilterOptions), which arguments and keys (ArgRef, KeySpec), which buckets
// (LinearSpec), and the whole command's options (ReportOptions). Filled by
// the command line (report/command_line.h) or by tests; the analysis code
// reads these and never the option parser.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "report/input/probe_catalog.h"

namespace usdt::report {

// Linear buckets for `--linear MIN,MAX,STEP` (bpftrace's lhist): [MIN, MAX)
// cut into STEP-wide buckets (report/stats/linear_histogram.h).
struct LinearSpec {
  int64_t min = 0;
  int64_t max = 0;
  int64_t step = 1;
};

// Parses "MIN,MAX,STEP". Fails unless MIN < MAX, STEP > 0 and there are at
// most kMaxLinearBuckets buckets.
constexpr int64_t kMaxLinearBuckets = 100000;
Result<LinearSpec> parse_linear_spec(std::string_view text);

enum class Command { summary, dump, latency, hist, export_trace, stacks, flamegraph, heatmap, html, top };

// The filters every command takes.
struct FilterOptions {
  std::vector<std::string> probes;  // patterns; empty = every probe
  std::optional<uint32_t> pid;
  std::optional<uint32_t> tid;
  std::optional<uint64_t> since_ns;  // relative to the timeline start
  std::optional<uint64_t> until_ns;
};

// An argument on the command line: argN (by position, N from 0) or a name
// (format 1.2: a DWARF parameter, a tracepoint field), whose position may
// differ from one probe site to another.
struct ArgRef {
  int index = 0;     // when name is empty
  std::string name;  // when not empty

  // The argument's index at a site, -1 when the site has no such argument.
  int at(const SiteInfo* site) const;
  static ArgRef positional(int i) {
    ArgRef a;
    a.index = i;
    return a;
  }
  std::string text() const;  // "argN" or the name
};
// "argN" or a name; with numbers_too (hist --arg), also a bare "N".
Result<ArgRef> parse_arg_ref(const std::string& text, const char* option, bool numbers_too);

// How a string key is grouped: as it is, by its SQL statement's shape
// (sql(argN)) or with its numbers folded (digits(argN)); see
// report/stats/query_shape.h.
enum class KeyShape : uint8_t { none, sql, digits };

// --key / --by: tid, pid, argN or an argument's name, or sql(ARG) /
// digits(ARG) of one; --by also host. The words tid, pid (and host for
// --by) win over arguments of that name (those are still argN).
struct KeySpec {
  enum class Kind : uint8_t { tid, pid, arg, host } kind = Kind::tid;  // host: --by only
  ArgRef arg;
  KeyShape shape = KeyShape::none;  // kind arg: how its strings group
  std::string text() const;
};
Result<KeySpec> parse_key_spec(const std::string& text, const char* option);

struct ReportOptions {
  Command command = Command::summary;
  std::vector<std::string> traces;
  FilterOptions filter;
  std::string format = "text";
  // latency, export
  std::string start;
  std::string end;
  KeySpec key;
  std::optional<KeySpec> by;
  bool linear_hist = false;
  std::optional<LinearSpec> linear;
  uint32_t top = 0;
  // latency: the N slowest pairs with their stacks
  uint32_t slowest = 0;
  // stacks: flamegraph.pl's folded lines
  bool folded = false;
  // hist
  std::optional<ArgRef> arg;
  // export, flamegraph, heatmap, html: -o FILE (flamegraph, heatmap, html:
  // empty for standard output)
  std::string output;
  // flamegraph: an icicle of the callers; a differential graph of two
  // traces (the second against the first); the title
  bool reverse = false;
  bool diff = false;
  std::string title;
  // Threads that decode each trace (-j); 0: one per core.
  uint32_t jobs = 0;
  // top: the --start/--end pairs, in order.
  std::vector<std::pair<std::string, std::string>> pairs;
  // top, and summary and latency with --follow: read the trace while it is
  // written (report/input/live_trace.h), a screen every interval.
  bool follow = false;
  bool once = false;  // top: one screen of what is written now
  std::chrono::milliseconds interval{1000};
  // What each reader of a trace may hold of what it decodes (--max-memory,
  // bytes); 0: the reader's default (formats/read_budget.h).
  uint64_t memory_budget = 0;
};

// The most -j accepts: more threads than this only cost memory.
constexpr uint32_t kMaxJobs = 256;

const char* command_name(Command command);

}  // namespace usdt::report
