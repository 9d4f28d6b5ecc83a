// The usdt-record command line (docs/CLI.md), parsed into plain data; probe
// specs (-e, --string) parsed once, here.
// Parsing checks the combinations (a recording needs -e and one of COMMAND,
// -p, -a) so that the code that runs the command can trust the options.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/probe_spec.h"
#include "common/result.h"
#include "record/output/output_policy.h"
#include "record/live_fleet_options.h"

namespace usdt::record {

constexpr uint32_t kDefaultBufferPages = 1024;
constexpr uint32_t kDefaultStackBytes = 512;
constexpr uint32_t kDefaultStringBytes = 256;
constexpr uint32_t kDefaultMaxFunctions = 1000;
// The kernel's fetch-args copy at most 4096 bytes of a string, NUL included.
constexpr uint32_t kMaxStringBytes = 4095;

// --string PROBE=ARG[,ARG...]: those arguments of the matching probes are
// char * to read as NUL-terminated strings at the hit; ARG is argN or the
// name of a function's parameter.
struct StringArgs {
  ProbeSpec probe;        // the PROBE pattern
  uint32_t arg_mask = 0;  // bit N: argN
  // Parameter names (uprobes whose DWARF names them), e.g. "query".
  std::vector<std::string> arg_names;
};

// -g / --call-graph MODE, with perf's meanings (perf-record(1)):
//   fp[,DEPTH]    the kernel's user callchain (frame pointers), at most DEPTH frames;
//   dwarf[,BYTES] the user registers and BYTES of the user stack at each hit,
//                 unwound by the recorder with the binaries' CFI.
enum class CallGraphMode : uint8_t { none, fp, dwarf };

// perf's defaults: a 8192-byte stack copy; 127 frames (kernel.perf_event_max_stack).
constexpr uint32_t kDefaultCallGraphBytes = 8192;
constexpr uint32_t kDefaultCallGraphDepth = 127;
// The deepest stack a trace holds (format::kMaxStackDepth).
constexpr uint32_t kMaxCallGraphDepth = 1024;

struct CallGraph {
  CallGraphMode mode = CallGraphMode::none;
  uint32_t depth = kDefaultCallGraphDepth;       // frames kept per stack
  uint32_t stack_bytes = kDefaultCallGraphBytes;  // dwarf: user stack copied per event
  bool enabled() const { return mode != CallGraphMode::none; }
};

// Parses MODE of -g/--call-graph: "fp", "fp,DEPTH", "dwarf", "dwarf,BYTES"
// (BYTES a multiple of 8 up to 65528, as perf checks it).
Result<CallGraph> parse_call_graph(const std::string& text);

// --capture: how events are captured (README "How recording works").
//   bpf     a BPF program attached to the probes' perf events reads the
//           arguments at the hit into a BPF ring buffer;
//   sample  perf samples (registers, stack) and tracefs kernel reads;
//   automatic  bpf where the kernel and permissions allow it, else sample.
enum class CaptureMode : uint8_t { automatic, bpf, sample };

struct RecordOptions {
  bool help = false;
  bool version = false;

  bool list = false;     // -l: list probes instead of recording
  bool verbose = false;  // -v: with -l, locations and argument specs
  // -l: the positional arguments, TARGETs and PATTERNs (see list_command.h).
  std::vector<std::string> list_args;

  std::vector<ProbeSpec> probes;      // -e PROBE, in order
  std::string output = "usdt.trace";  // -o FILE
  std::vector<pid_t> pids;            // -p PID[,PID...]
  bool all = false;                   // -a: every process that runs the probed files
  std::optional<double> duration_seconds;  // --duration
  bool quiet = false;                 // -q
  // --allow-missing: a PROVIDER:NAME that matches nothing at the start waits
  // for a library loaded later instead of being an error.
  bool allow_missing = false;
  uint32_t buffer_pages = kDefaultBufferPages;  // per-CPU ring buffer data pages (power of 2)
  uint32_t stack_bytes = kDefaultStackBytes;    // user stack bytes copied per sample
  std::vector<StringArgs> strings;              // --string
  uint32_t string_bytes = kDefaultStringBytes;  // --string-bytes: longest string kept
  uint32_t max_functions = kDefaultMaxFunctions;  // --max-functions: per uprobe pattern
  CallGraph call_graph;                // -g / --call-graph
  CaptureMode capture = CaptureMode::automatic;  // --capture
  // --buffer-pages was given: it wins over the larger default of -g dwarf.
  bool buffer_pages_given = false;
  std::vector<std::string> command;   // COMMAND ARG... (after "--" or the first positional)
  // Where the trace goes and how much is kept: --max-size, --switch-output,
  // --flight-recorder and their companions (record/output/output_policy.h).
  OutputPolicy output_policy;
  // --flush-interval, --hostname (USDT_HOSTNAME), --mount-ns-of.
  LiveFleetOptions live_fleet;
};

// Parses argv. An Error is a usage error (exit status 2): unknown option,
// bad value, or a combination that cannot work. --help/--version set the
// flags and skip the combination checks.
Result<RecordOptions> parse_record_options(int argc, const char* const* argv);

// The --help text.
std::string record_help_text();

}  // namespace usdt::record
