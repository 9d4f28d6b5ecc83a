// The records a trace file holds, as the writer takes them and the reader
// returns them. formats/FORMAT.md describes how they are laid out on disk.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/probe_kind.h"

#include "common/arg_spec.h"

namespace usdt::format {

// sys/sdt.h allows at most 12 arguments per probe.
constexpr int kMaxArgs = 12;
constexpr uint32_t kNoSite = 0xffffffffu;
// The longest string argument a trace holds; the writer cuts longer ones.
constexpr uint32_t kMaxStringArgBytes = 64 * 1024;
// The deepest user stack a trace holds (1.3); the writer cuts deeper ones and
// marks them truncated.
constexpr uint32_t kMaxStackDepth = 1024;

// A probe's kind, stored as its value (common/probe_kind.h).
using ProbeKind = usdt::ProbeKind;

// How one argument of a probe site is decoded, self-contained so a report never
// needs the traced binary.
struct ArgDescriptor {
  std::string spec;  // the note's text, e.g. "-4@-20(%rbp)"
  uint8_t size = 8;  // bytes
  bool is_signed = false;
  bool is_float = false;
  ArgLocation location = ArgLocation::undecodable;
  ArgSource source = ArgSource::not_in_sample;
  // A string argument (usdt-record --string PROBE=argN): the kernel read the
  // bytes the value points to; size is then 8. Last, so that aggregate
  // initializers of the fields above keep working.
  bool is_string = false;
  // The argument's name (1.2): a DWARF parameter, a tracepoint field; empty
  // when it has none (reports then call it argN).
  std::string name;
  // The stack pointer at the hit (1.2), not an argument of the probe: the
  // recorder writes it as the last descriptor of a function probe, so that
  // returns pair with their own entries. Readers take it out of the site's
  // arguments (ProbeSite::has_frame) and of its events (Event::frame).
  bool is_frame = false;
  // A pointer (1.6): the value is an address, which text output prints in
  // hex. The recorder knows it from the type: a DWARF parameter or return
  // value of pointer or reference type, a tracepoint field declared with '*'.
  bool is_pointer = false;
};

// One probe site: a place in a file where a uprobe was attached.
struct ProbeSite {
  uint32_t id = 0;  // dense, 0..N-1, the Event::site_id
  ProbeKind kind = ProbeKind::usdt;
  std::string path;      // the file as the recorder opened it
  std::string build_id;  // hex, empty when the file has none
  std::string provider;  // USDT provider; for uprobes, the file's base name
  std::string name;      // USDT name; for uprobes, SYMBOL[+OFFSET]
  uint64_t file_offset = 0;
  uint64_t semaphore_offset = 0;  // 0 = no semaphore
  std::vector<ArgDescriptor> args;
  // Read back: the recorder stored the stack pointer of each hit (a last
  // descriptor with is_frame, which the reader removed from args); events
  // carry it in Event::frame. Writers ignore this field.
  bool has_frame = false;
  // CLOCK_MONOTONIC time (the clock of Event::time_ns) from which the site
  // was attached: 0 = from the recording's start (every site of the probe
  // table); later for a site added during the recording (1.4, a library
  // dlopen()ed after the start): it has no events before, which does not
  // mean it was not called. Writers take it from add_sites(), not from here.
  uint64_t active_since_ns = 0;
};

// Which file of a recording this is (1.7, FORMAT.md 3.3.1): the whole
// recording, a part of a series (--switch-output) or a snapshot
// (--flight-recorder). Readers take values they do not know as whole.
enum class FileRole : uint8_t { whole = 0, part = 1, snapshot = 2 };

// A file's place among the files of its recording (1.7). Files before 1.7
// read as role whole with the other fields empty.
struct SeriesInfo {
  FileRole role = FileRole::whole;
  std::string recording_id;  // 32 hex digits shared by the recording's files; "" for whole
  uint32_t sequence = 0;     // the part's or snapshot's number, from 1
  // The time of the carried comm records at the file's start (the names of
  // threads that began before it), alone in its first chunk; 0 = none.
  uint64_t carried_ns = 0;
  // A snapshot: the records it holds lie in [window_begin_ns, window_end_ns].
  uint64_t window_begin_ns = 0;
  uint64_t window_end_ns = 0;
  // A snapshot: what asked for it ("signal", "control", "exit", or a
  // trigger's text) and, for a trigger, the event that fired it.
  std::string trigger;
  uint32_t trigger_site = 0xffffffffu;  // kNoSite: no event
  uint64_t trigger_time_ns = 0;         // latency: the end's
  uint32_t trigger_pid = 0;
  uint32_t trigger_tid = 0;
  uint64_t trigger_start_ns = 0;  // latency: the start's time
  uint64_t suppressed = 0;        // triggers that took no snapshot since the previous one
};

// Facts about the recording, written once at the start of the file.
struct TraceMetadata {
  std::string hostname;
  std::string kernel_release;
  std::string arch;  // "x86_64", "aarch64"
  uint32_t page_size = 0;
  std::string command_line;  // the recorder's own argv, joined
  std::string recorder_version;
  uint64_t start_monotonic_ns = 0;  // CLOCK_MONOTONIC: the clock of every time_ns
  uint64_t start_realtime_ns = 0;   // CLOCK_REALTIME at the same moment
  // 1.6: the CPUs whose ring buffers the recording read, ascending (every
  // event's cpu is one of them); empty when the file does not say. A reader
  // of a damaged file needs them: a CPU none of whose events is read may
  // still have had some in the lost part (formats/completeness.h).
  std::vector<uint32_t> cpus;
  SeriesInfo series;                // 1.7
};

// A string argument: its bytes (no NUL, possibly invalid UTF-8), cut at the recording's
// --string-bytes; truncated says it was cut.
struct StringArg {
  std::string_view bytes;
  bool truncated = false;
};

// One probe hit. Argument i is present when bit i of missing_mask is clear;
// a missing argument is never a 0, it is absent.
//
// Argument i is a string when bit i of string_mask is set (as the site's
// descriptor says): args[i] then holds a pointer to a StringArg,
// reinterpret_cast<uint64_t>(const StringArg*). A string that could not be
// read is missing (missing_mask bit set), as for numbers; an empty string is
// present with size 0. Whoever produces an Event owns its StringArgs and their
// bytes: TraceWriter copies them, TraceReader keeps them until its next next().
struct Event {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t cpu = 0;
  uint32_t site_id = 0;
  uint8_t arg_count = 0;
  uint16_t missing_mask = 0;
  uint16_t string_mask = 0;  // bit i: argument i is a string (args[i] is a StringArg*)
  // Raw bits of each argument: sign-extended to 64 bits for signed arguments,
  // zero-extended for unsigned ones, the IEEE bits for floats; for a string,
  // the address of its StringArg.
  uint64_t args[kMaxArgs] = {};
  // Read back from a site with has_frame: the stack pointer at the hit, 0
  // when it was not recorded. (Writers take it as the last argument.)
  uint64_t frame = 0;
  // The user call stack at the hit (1.3, usdt-record -g): stack_depth
  // absolute addresses, innermost first (stack[0] is the ip at the hit, the
  // others return addresses); stack_truncated when the walk stopped before the
  // outermost frame. No stack: stack_depth 0. Owned like StringArgs: whoever
  // produces the Event owns the addresses; TraceWriter copies them,
  // TraceReader keeps them until its next next().
  const uint64_t* stack = nullptr;
  uint16_t stack_depth = 0;
  bool stack_truncated = false;
  // The stack's identity among the events this process reads: events with
  // the same nonzero stack_key have the same stack (addresses, depth, cut),
  // so a consumer can count them by it without reading the addresses.
  // TraceReader numbers each chunk's distinct stacks (keys never repeat
  // across chunks or readers); 0 when there is no stack or the producer
  // gives no key (compare the addresses then).
  uint64_t stack_key = 0;

  bool has_arg(int i) const { return i < arg_count && !(missing_mask & (1u << i)); }
  bool is_string(int i) const { return (string_mask >> i) & 1u; }
  // Only for a present string argument (is_string(i) && has_arg(i)).
  const StringArg& string_arg(int i) const {
    return *reinterpret_cast<const StringArg*>(static_cast<uintptr_t>(args[i]));
  }
};

enum class ProcessEventKind : uint8_t {
  comm = 1,
  exec = 2,
  fork = 3,
  exit = 4,
  mmap = 5,
  pid_namespace = 6,
};

// Process lifecycle, so reports can name processes and threads.
//   comm: tid (of pid) is called comm (from PERF_RECORD_COMM or /proc at start);
//   exec: pid exec'd and is now called comm;
//   fork: tid of pid was created by parent_tid of parent_pid (threads too);
//   exit: tid of pid exited;
//   mmap (1.3): from now on pid has map_length bytes of path, from byte
//     map_file_offset of the file, mapped executable at map_address (build_id
//     hex, empty when unknown); it replaces what it overlaps of pid's earlier
//     mappings. exec ends all of pid's mappings, fork copies them.
//   pid_namespace (1.8): tid of pid lives in the PID namespace with inode
//     pid_namespace, where it is ns_pid / ns_tid (all three 0: the thread
//     was gone before the recorder could read them).
struct ProcessEvent {
  uint64_t time_ns = 0;
  ProcessEventKind kind = ProcessEventKind::comm;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t parent_pid = 0;
  uint32_t parent_tid = 0;
  std::string comm;
  // mmap only:
  uint64_t map_address = 0;
  uint64_t map_length = 0;
  uint64_t map_file_offset = 0;
  std::string build_id{};  // hex
  std::string path{};
  // pid_namespace only:
  uint32_t ns_pid = 0;
  uint32_t ns_tid = 0;
  uint64_t pid_namespace = 0;
};

// A function symbol of a mapped file, placed by file offset (1.3).
struct ObjectSymbol {
  uint64_t file_offset = 0;  // of its first instruction in the file
  uint64_t size = 0;         // bytes; 0 = up to the next symbol
  std::string name;          // as in the symbol table (C++ names mangled)
};

// The symbols of one file that appears in recorded stacks (1.3, block kind 6),
// so that reports name frames without the traced binaries. Keyed by build_id,
// or by path when the file has no build-id.
struct ObjectTable {
  std::string build_id;  // hex, empty when the file has none
  std::string path{};
  std::vector<ObjectSymbol> symbols;  // sorted by file_offset
};

// Events the kernel dropped (PERF_RECORD_LOST): count of them on cpu between
// the two times, attributed to site_id when known (kNoSite otherwise).
struct LostEvent {
  uint64_t time_begin_ns = 0;
  uint64_t time_end_ns = 0;
  uint32_t cpu = 0;
  uint32_t site_id = kNoSite;
  uint64_t count = 0;
};

// Written last by a recording that ended cleanly.
struct TraceSummary {
  uint64_t end_monotonic_ns = 0;
  uint64_t events = 0;
  uint64_t lost = 0;
  std::vector<uint64_t> events_per_site;  // indexed by site id
  std::vector<uint64_t> lost_per_site;    // indexed by site id
  // Samples the recorder dropped itself, by cause (e.g. {"malformed", 3},
  // {"foreign_process", 120}); none of them is in the trace. Empty for
  // files written before version 1.1. One cause is not samples:
  // kLostProcessRecords.
  std::vector<std::pair<std::string, uint64_t>> dropped;
  // The recording's span (FORMAT.md 3.6.1, "the duration of a recording")
  // runs from this (1.5; 0 in older files) to end_monotonic_ns, both
  // CLOCK_MONOTONIC.
  uint64_t enabled_monotonic_ns = 0;
  // 1.8 (0 in older files): when the last event was enabled, every probe
  // armed; and how long the attach waited for other recordings' clean-up.
  uint64_t armed_monotonic_ns = 0;
  uint64_t attach_wait_ns = 0;
};

// A progress block (1.8, FORMAT.md 3.9): every event and process event with
// time_ns below complete_before_ns, and every lost record with time_end_ns
// below it, is in a chunk written before it; the next progress block (or the
// file's end) follows within next_within_ns while the recorder runs (0:
// unknown).
struct Progress {
  uint64_t complete_before_ns = 0;
  uint64_t next_within_ns = 0;
};

// The cause in TraceSummary::dropped that counts process records (comm,
// fork, exit, mmap) the kernel dropped from a full side-band ring: not
// events (not in `lost`), but thread names and, with call stacks, the
// mappings stacks are unwound and named against may be incomplete.
inline constexpr const char* kLostProcessRecords = "process_records_lost";

}  // namespace usdt::format
