// The recording session behind run_record_command (record_command.h):
//   resolve the probe specs to sites and plan each site's sample;
//   create the trace file (an unwritable path fails before anything is attached);
//   start the command held before exec, or find the -p processes' threads;
//   open every perf event disabled, enable them all, print the ready line,
//   and only then let the command run;
//   drain the ring buffers on this thread (woken by the buffers' watermark,
//   the stop signals and the --duration timer) while a writer thread encodes;
//   at the end (command exited, every -p process gone, --duration, a stop
//   signal, a write error or an internal error) disable, drain what is left,
//   write the summary, print the report, end what still runs of the command.
//
// Its parts, one file each: session_setup.cpp (resolve, plan, the file),
// session_attach.cpp (signals, events, the command or -p targets),
// session_loop.cpp (the drain loop and libraries loaded later),
// session_end.cpp (every way out: the end of the file, the report, the
// command, the events).
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/result.h"
#include "formats/trace_writer.h"
#include "record/attach/attach_turns.h"
#include "record/attach/uprobe_event_group.h"
#include "record/kernel/bpf_capture.h"
#include "record/kernel/event_set.h"
#include "record/kernel/kernel_features.h"
#include "record/kernel/sample_decoder.h"
#include "record/plan/recording_plan.h"
#include "record/record_options.h"
#include "record/resolve/mapping_follower.h"
#include "record/resolve/probe_resolver.h"
#include "record/output/trace_sink.h"
#include "record/session/batch_queue.h"
#include "record/session/bpf_source.h"
#include "record/session/child_process.h"
#include "record/session/control_fifo.h"
#include "record/session/drainer.h"
#include "record/session/stop_signals.h"
#include "record/session/writer_thread.h"
#include "record/stacks/stack_collector.h"

namespace usdt::record {

// A fault a test asks for through the environment (USDT_RECORD_TEST_FAULT):
// an exception thrown in one of the recorder's threads, to check that every
// way out cleans up; or context_swap: record as on a kernel without inherit
// + PERF_SAMPLE_READ (KernelFeatures), whose task contexts may be swapped.
// snapshot_stall: a flight recorder's snapshot writer stops for good once
// its second snapshot file has begun (for a test to kill the recorder in it).
// none in any real recording.
enum class TestFault { none, writer, watchdog, drain, context_swap, snapshot_stall };
TestFault test_fault_from_environment();

class RecordSession {
 public:
  explicit RecordSession(const RecordOptions& options) : options_(options) {}
  // The whole recording; prints its own errors and returns the exit status.
  int run();

 private:
  // --- session_setup.cpp ---
  Status prepare();
  // Resolves the probe specs (not tracepoints) to the sites to plan.
  Result<std::vector<ResolvedSite>> resolve_sites(const std::vector<ProbeSpec>& probe_specs);
  // Tracepoints are found, by name, in tracefs: mounted before planning.
  Status add_tracepoints(const std::vector<ProbeSpec>& specs, std::vector<ResolvedSite>& resolved,
                         std::optional<TracefsMount>& tracefs);
  Status plan_and_create_file(std::vector<ResolvedSite> resolved,
                              std::optional<TracefsMount> tracefs);
  // Records need the event id only to tell several sites apart.
  bool identifier() const { return follower_ != nullptr || plan_.sites.size() > 1; }

  // --- session_capture.cpp: the BPF capture path (bpf_capture.h) ---
  // Whether the uprobe sites are captured by BPF (--capture, what the
  // kernel and permissions allow, -g), loading the capture program when
  // they are; with auto, one line says which and why.
  Result<bool> choose_capture(const std::vector<ResolvedSite>& resolved);
  // Gives the loaded program the plan of every BPF site; maps its ring.
  Status load_capture();
  // Gives the program the plans of sites attached during the recording.
  Status add_capture_sites(uint32_t first);
  // Attaches the program to the BPF sites' events opened since the last call.
  Status attach_capture_hosts();

  // --- session_attach.cpp ---
  Status attach();
  Status attach_targets();
  Status attach_command();
  Status attach_process(pid_t pid);
  Status attach_all_processes();
  // Enables every event, seeds -g's mappings, says it is recording.
  Status start_recording();
  void print_recording_line() const;
  // Removes killed recorders' tracefs groups on a thread of its own, once
  // this recording is armed (session_attach.cpp says why).
  void remove_stale_groups_meanwhile();

  // --- session_loop.cpp ---
  Status loop();
  // SIGUSR2 or a control command: a snapshot, or the next file of a
  // series, after everything drained so far.
  void ask_output(const std::string& cause, uint64_t at_ns);
  void read_control(uint64_t asked_ns);
  bool targets_alive();
  // Attaches the probes of files the traced processes mapped since the
  // last pass (record/resolve/mapping_follower.h).
  void follow_new_mappings();
  Status attach_added_sites(const std::vector<ResolvedSite>& found, const std::string& path,
                            uint64_t mapped_ns);
  // Of the sites planned for a file mapped later, those that could be
  // defined (tracefs events); warns about the others.
  void define_added_sites(std::vector<PlannedSite>& planned, const std::string& path,
                          std::vector<PlannedSite>& sites, std::vector<SiteAttach>& attach,
                          std::vector<SiteDecoding>& decodings);
  void register_event_ids();

  // --- session_end.cpp ---
  // The end of every recording that got as far as its writer thread:
  // failure says why it stops early (printed first), if it does.
  int finish(const std::optional<Error>& failure);
  // Disables the events and drains what is left; sets end_ns_.
  void stop_events();
  format::TraceSummary make_summary() const;
  void print_end_report(const format::TraceSummary& summary, bool write_failed) const;
  void warn_never_matched() const;
  // USDT_RECORD_TEST_TABLES: one line, when ("at the start", "at the end").
  void print_table_sizes(const char* when) const;
  void name_unnamed_threads();
  void warn_stack_misses() const;
  // Without inherit + PERF_SAMPLE_READ (before Linux 6.12) the kernel may
  // stop a forked child's per-task events (PerfEvent::open_tracking): said
  // when a traced process forked.
  void warn_forked_children() const;
  // Samples the kernel delivered that the recorder did not write, by cause
  // (zero counts included: the trace says what was checked).
  std::vector<std::pair<std::string, uint64_t>> dropped_by_cause() const;
  // Closes the events, then ends what still runs of the command (SIGTERM,
  // then SIGKILL after 2 s, its descendants too). Returns the command's
  // exit status, 0 if it was ended.
  int end_command();
  // Closes every perf event (slow in the kernel; says so when it will be).
  // Returns the background detacher's pid, -1 when there is none.
  pid_t release_events();
  // -g: the symbols of every file that appears in a recorded stack.
  std::vector<format::ObjectTable> stack_objects() const;

  const RecordOptions& options_;
  TestFault fault_ = test_fault_from_environment();
  KernelFeatures features_;
  std::vector<format::ProbeSite> probe_sites_;
  std::vector<SiteAttach> attach_;
  // The output (record/output/trace_sink.h), until the writer thread owns
  // it; output_ still reaches it then, for set_enabled_ns() only.
  std::unique_ptr<TraceSink> sink_;
  TraceSink* output_ = nullptr;
  std::string created_path_;  // the file made at set-up, removed if the start fails
  std::optional<ControlFifo> control_;
  bool output_is_stdout_ = false;  // the trace goes to the recorder's stdout
  std::optional<StopSignals> signals_;
  std::optional<ChildProcess> child_;
  // Declared in this order, so destroyed in the reverse one: the perf events
  // are closed first, then the group deletes the tracefs events (the kernel
  // refuses while a perf event is open on them), then a tracefs we mounted
  // is unmounted (it lives in plan_).
  RecordingPlan plan_;
  std::optional<UprobeEventGroup> group_;
  // -a: the sites whose file was gone when their tracefs event was to be
  // defined (define_tracefs_events), left out of the attach.
  std::vector<bool> gone_;
  std::optional<EventSet> events_;
  // The BPF capture program (its links go before the events they hold) and
  // its ring as the drainer's second source.
  bool capture_bpf_ = false;
  std::vector<PerfEvent> capture_hosts_;  // the recorder's own events of tracefs sites
  std::optional<BpfCapture> bpf_;
  std::unique_ptr<BpfSource> bpf_source_;
  std::set<uint32_t> bpf_attached_;  // sites whose events carry the program
  std::unique_ptr<SampleDecoder> decoder_;
  std::unique_ptr<StackCollector> stacks_;     // -g
  std::unique_ptr<MappingFollower> follower_;  // PROVIDER:NAME specs in libraries loaded later
  size_t ids_registered_ = 0;
  // Batches waiting for the writer: 64 x 8192 events is about 64 MiB.
  BatchQueue queue_{64};
  std::unique_ptr<Drainer> drainer_;
  std::unique_ptr<WriterThread> writer_thread_;
  std::set<pid_t> live_;  // -p: the processes we wait for
  std::optional<int> child_status_;
  // The recording's span (formats/FORMAT.md, "the duration of a
  // recording"): CLOCK_MONOTONIC read before the first event is enabled and
  // after the last one is disabled.
  uint64_t start_ns_ = 0;
  uint64_t end_ns_ = 0;
  // When the last event was enabled (the probes armed), and how long the
  // attach waited for other recordings' clean-up (attach_turns.h).
  uint64_t armed_ns_ = 0;
  uint64_t file_start_ns_ = 0;  // the metadata's start_monotonic_ns
  uint64_t attach_wait_ns_ = 0;
  std::optional<AttachTurn> attach_turn_;  // held while attaching
  // Last: joined first, before the tracefs mount it may use goes away.
  std::jthread stale_cleanup_;
};

}  // namespace usdt::record
