// The usdt-record command line (/work/shared/CLI.md), parsed into plain data.
// Parsing checks the combinations (a recording needs -e and one of COMMAND,
// -p, -a) so that the code that runs the command can trust the options.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace usdt::record {

constexpr uint32_t kDefaultBufferPages = 1024;
constexpr uint32_t kDefaultStackBytes = 512;
constexpr uint32_t kDefaultStringBytes = 256;
constexpr uint32_t kDefaultMaxFunctions = 1000;
// The kernel's fetch-args copy at most 4096 bytes of a string, NUL included.
constexpr uint32_t kMaxStringBytes = 4095;

// --string PROBE=argN[,argN...]: those arguments of the matching probes are
// char * to read as NUL-terminated strings at the hit.
struct StringArgs {
  std::string probe;     // a PROBE pattern (usdt forms), as given
  uint32_t arg_mask = 0;  // bit N: argN
};

struct RecordOptions {
  bool help = false;
  bool version = false;

  bool list = false;     // -l: list probes instead of recording
  bool verbose = false;  // -v: with -l, locations and argument specs
  // -l: the positional arguments, TARGETs and PATTERNs (see list_command.h).
  std::vector<std::string> list_args;

  std::vector<std::string> probes;    // -e PROBE, in order
  std::string output = "usdt.trace";  // -o FILE
  std::vector<pid_t> pids;            // -p PID[,PID...]
  bool all = false;                   // -a: every process that runs the probed files
  std::optional<double> duration_seconds;  // --duration
  bool quiet = false;                 // -q
  uint32_t buffer_pages = kDefaultBufferPages;  // per-CPU ring buffer data pages (power of 2)
  uint32_t stack_bytes = kDefaultStackBytes;    // user stack bytes copied per sample
  std::vector<StringArgs> strings;              // --string
  uint32_t string_bytes = kDefaultStringBytes;  // --string-bytes: longest string kept
  uint32_t max_functions = kDefaultMaxFunctions;  // --max-functions: per uprobe pattern
  std::vector<std::string> command;   // COMMAND ARG... (after "--" or the first positional)
};

// Parses argv. An Error is a usage error (exit status 2): unknown option,
// bad value, or a combination that cannot work. --help/--version set the
// flags and skip the combination checks.
Result<RecordOptions> parse_record_options(int argc, const char* const* argv);

// The --help text.
std::string record_help_text();

}  // namespace usdt::record
