// The call stack of each sampled event (usdt-record -g), made while the
// traced processes are alive so that the trace stores frame addresses only
// (FORMAT.md, chunk section "stacks"):
//   fp     the kernel's user callchain (PERF_SAMPLE_CALLCHAIN): its user
//          entries, context markers (PERF_CONTEXT_*) left out, with the
//          caller a frame-pointer walk misses at a site without a frame
//          set up (record/stacks/fp_caller.h);
//   dwarf  the user registers and stack copy unwound by DwarfUnwinder with
//          the binaries' CFI, against the process's executable mappings.
//
// It keeps every traced process's executable mappings (ProcessMappings):
// seeded from /proc/PID/maps (at the start for -p, at a process's first
// sample otherwise), then changed by the mmap, exec and fork records in
// the order of their times; exec clears, fork copies, exit drops them at
// the end of the drain pass. Every frame's mapping names a file, whose
// symbols the recording writes at its end (record/stacks/object_table.h):
// only files that appear in a stack are listed.
//
// Bad input (no mapping, a stack that ends in garbage, a callchain longer
// than the record) stops that stack and marks it truncated; nothing is
// invented. Used from the draining thread only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "formats/trace_types.h"
#include "record/kernel/sample_decoder.h"
#include "record/record_options.h"
#include "record/stacks/process_mappings.h"

namespace usdt::record {

class DwarfUnwinder;
struct UprobeConfig;

// Whether this usdt-record can unwind -g dwarf stacks (built with
// record/stacks/dwarf_unwinder.cpp).
bool dwarf_unwinding_available();

// The x86-64 user registers -g dwarf samples (perf numbering): the 17 that
// DWARF unwinding uses (ax..di, bp, sp, ip, r8..r15), not flags and segments.
constexpr uint64_t kUnwindRegsMask = 0x1ffull | (0xffull << 16);

// Adds what call stacks need to one site's sample and its decoding: the
// callchain (fp; and what the site's CallerRepair reads), or all unwinding
// registers and at least graph.stack_bytes of stack (dwarf). Arguments
// decode as before: their registers stay in the (larger) register set,
// their stack bytes in the (larger) dump.
void add_stack_sampling(const CallGraph& graph, UprobeConfig& attach, SiteDecoding& decoding);

// The per-CPU ring size of a recording: requested when the user gave
// --buffer-pages, else larger for -g dwarf (see the .cpp).
uint32_t ring_buffer_pages(const CallGraph& graph, uint32_t requested, bool given, size_t cpus,
                           size_t page_size);

// A file that appears in recorded stacks.
struct StackObject {
  std::string path;       // as the process mapped it ("[vdso]" for the vdso)
  std::string build_id;   // hex, "" when unknown
  std::string open_path;  // where to read it: /proc/PID/root/PATH while PID lived
  // A file no path names (a memfd, a file deleted since it was mapped), or
  // one without build-id, opened through /proc/PID/map_files while the
  // process lived: open_path is then /proc/self/fd/N, readable after the
  // process is gone.
  std::shared_ptr<UniqueFd> pinned;
  // A file without build-id has nothing to check it by once open_path is
  // gone: path then names it only if the file there has not changed since
  // this time (CLOCK_REALTIME ns, when the recording began; 0: not known,
  // never trusted). A file replaced on disk is a new inode with a new ctime.
  int64_t unchanged_since_ns = 0;
  // The file offsets the frames in it are looked up at (the ip, a return
  // address - 1, as the report does), sorted: only the symbols holding them
  // need to be written. Empty: all symbols.
  std::vector<uint64_t> offsets;
};

class StackCollector {
 public:
  // Fails for -g dwarf when the unwinder is not built in.
  static Result<std::unique_ptr<StackCollector>> create(const CallGraph& graph);
  ~StackCollector();
  StackCollector(const StackCollector&) = delete;
  StackCollector& operator=(const StackCollector&) = delete;

  // Reads pid's executable mappings from /proc/PID/maps, with build-ids read
  // from the files; returns them as mmap events at time_ns, to be written.
  // Nothing (and pid stays unseeded) when the process is gone.
  std::vector<format::ProcessEvent> seed(uint32_t pid, uint64_t time_ns);

  // A mapping-changing record (mmap, exec, fork, exit), in time order,
  // before the samples they precede. Exit takes effect at end_pass().
  void on_process(const format::ProcessEvent& event);
  // The mapping-changing records of one drain pass, of all CPUs, sorted by
  // time. They are applied per process up to each sample's time as
  // collect() meets it, so that a sample read after a later record (from
  // another CPU's buffer, or later in its own) still sees the mappings of
  // its time: a library dlclose()d and another mapped at its address in
  // the same pass. end_pass() applies the rest.
  void begin_pass(std::vector<format::ProcessEvent> records);
  // Completes an mmap event to be written: the build-id the kernel did not
  // give, read from the file (cached per path), or the vdso's.
  void complete(format::ProcessEvent& event);
  // Drops the mappings of processes that exited.
  void end_pass();

  // Sets event.stack (valid until the next call), stack_depth and
  // stack_truncated from the inputs of its capture; a process never seen is
  // seeded first, its mmap events queued in take_seeded().
  void collect(const StackInputs& inputs, format::Event& event);
  std::vector<format::ProcessEvent> take_seeded();

  // The files that appeared in stacks, in the order first seen.
  std::vector<StackObject> objects() const;

  const CallGraph& graph() const { return graph_; }

 private:
  explicit StackCollector(const CallGraph& graph);
  void collect_fp(const StackInputs& inputs);
  void collect_dwarf(uint32_t pid, const StackInputs& inputs);
  void note_objects(uint32_t pid);
  // The build-id of the file mapped at path, read through open_path (the
  // process's own view of it), or through path itself when open_path cannot
  // be read (the process is gone, no permission) and path is that very file:
  // its inode is mapped_inode, when the mapping says (/proc/PID/maps; 0 =
  // not known). Cached by the device and inode of the file read, not by
  // path: a process of another mount namespace maps another file of that
  // name, a file replaced on disk is another inode, and either would
  // otherwise get the first one's build-id, and its symbols and tables.
  std::string build_id_of(const std::string& path, const std::string& open_path,
                          uint64_t mapped_inode = 0);
  // Brings pid's mappings to time_ns: applies its pass records up to then,
  // from the pass's start again when records after time_ns were applied.
  void advance_to(uint32_t pid, uint64_t time_ns);
  ExecMapping to_mapping(const format::ProcessEvent& event);
  // Pins the mapped file itself (see StackObject::pinned) when no path
  // names it, or when it has no build-id to tell it apart later.
  static void pin_file(uint32_t pid, const ExecMapping& mapping, StackObject& object);

  CallGraph graph_;
  std::unique_ptr<DwarfUnwinder> unwinder_;
  std::unordered_map<uint32_t, ProcessMappings> mappings_;
  std::unordered_set<uint32_t> seeded_;  // mappings complete: seeded, exec'd or forked
  std::vector<uint32_t> exited_;
  // One process's mapping records of the current pass (begin_pass).
  struct PassTimeline {
    bool had_mappings = false;  // at the pass's start, and then these:
    ProcessMappings start;
    bool start_seeded = false;
    std::vector<format::ProcessEvent> records;  // by time
    size_t applied = 0;
  };
  std::unordered_map<uint32_t, PassTimeline> timelines_;
  std::vector<format::ProcessEvent> seeded_events_;
  std::map<std::pair<dev_t, ino_t>, std::string> build_ids_;  // file -> hex ("" = none)
  std::string vdso_build_id_;
  int64_t started_ns_ = 0;  // CLOCK_REALTIME at create(): StackObject::unchanged_since_ns
  std::vector<uint64_t> frames_;
  bool truncated_ = false;
  // Objects seen in stacks, by key (build-id, else "path:" + path), and the
  // file offsets of their frames.
  std::unordered_map<std::string, size_t> object_index_;
  std::vector<StackObject> objects_;
  std::vector<std::unordered_set<uint64_t>> object_offsets_;
  // Stacks already noted (a hash of pid, mappings generation and frames):
  // most events repeat a few stacks, and those cost one lookup.
  std::unordered_set<uint64_t> noted_stacks_;
  uint64_t exits_ = 0;  // processes dropped so far: a reused pid hashes anew
};

}  // namespace usdt::record
