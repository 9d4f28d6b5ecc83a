// Empties the per-CPU ring buffers: decodes every record and queues the
// results in batches for the writer thread, keeping the counts the end
// report and the trace summary need. Runs on the main thread only.
//
// The pid filter: uprobe events are system-wide (see event_set.h) without
// tracefs, and so are the sites of libraries loaded during the recording
// (record/resolve/mapping_follower.h); with `--` and -p a sample of such a site is
// kept only if its process is traced: a root process or one forked by a
// traced process (FORK records of the inherited tracking events). Each
// pass first reads the side band up to one moment and applies its records
// sorted by time, so a child's fork is known before the grandchild's,
// whichever CPU's buffer each came in. A child's FORK record is written
// before the child runs, but may come after the pass's moment while the
// child's first samples, read to the buffer's head, are taken; so a sample
// of an unknown process waits for the next drain pass (whose side band is
// read past its time) before it is dropped as another process's. The
// samples of its buffer that follow it wait with it, and the waiting ones
// are settled before the next pass reads any sample: each CPU's events
// reach the trace in time order (formats/FORMAT.md, section 7), which lets
// a reader of a damaged trace say up to when each CPU's events are complete.
//
// With call stacks (-g) the samples' buffers are also read only up to the
// pass's moment, and the records that change mappings (mmap, exec, fork,
// exit) are handed to the StackCollector sorted by time first; the
// collector applies them up to each sample's time. Buffers are per CPU, so
// a library mapped on one CPU and hit at once on another would otherwise
// be unknown when the sample is unwound, and a sample read after a later
// dlclose()/dlopen() would be unwound against the new library.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "record/kernel/ring_buffer.h"
#include "record/kernel/sample_decoder.h"
#include "record/resolve/pid_namespace.h"
#include "record/session/batch_queue.h"
#include "record/stacks/stack_collector.h"

namespace usdt::record {

class Drainer;

// A source of events beside the perf rings (the BPF capture ring:
// record/session/bpf_source.h), drained in every pass after the rings and
// before the samples that wait for their process are settled, so that its
// events go through the same pid filter, stacks and counts.
class EventSource {
 public:
  virtual ~EventSource() = default;
  // Hands what it holds to the drainer (take_event, packed_room and
  // commit_packed, add_lost); returns the records read.
  virtual size_t drain_into(Drainer& drainer) = 0;
};

class Drainer {
 public:
  Drainer(SampleDecoder& decoder, BatchQueue& queue, size_t site_count);

  // Touches the memory of the batches the drain loop fills (BatchQueue's
  // spares) now, before the workload runs, rather than page by page in the
  // drain loop while it does.
  void prepare_batches();

  // Reads every buffer up to the moment the pass began (see below); returns
  // how many records were read. Batches are queued as they fill, and a
  // partly filled one 50 ms after the pass that began it.
  //
  // buffers[side_band_from...] hold the side-band records (comm, fork,
  // exit, mmap; record/kernel/event_set.h), apart from the samples. A pass reads
  // the clock, then takes every buffer's head and keeps only the records
  // up to that time: the rest waits for the next pass. Every buffer is one
  // CPU's, in time order, so a pass holds everything up to one moment and
  // nothing after it, and a sample is unwound against exactly the mappings
  // of its time. Reading the samples' heads before the clock left a window:
  // a program that ran its last hits and exited in it had its exit applied
  // in this pass and its samples, read in the next one, unwound against no
  // mappings at all. Without call stacks the order of samples and mappings
  // does not matter and the samples' buffers are read to their heads.
  size_t drain(std::vector<RingBuffer>& buffers);
  void set_side_band_from(size_t index) { side_band_from_ = index; }

  // Passes until one reads nothing (the events must be off).
  void drain_until_empty(std::vector<RingBuffer>& buffers);
  // Reads until the buffers are empty, then settles the waiting samples.
  void drain_to_end(std::vector<RingBuffer>& buffers);

  // Keeps only samples of these processes and their descendants, among the
  // events of the sites from first_site on (the sites opened system-wide;
  // per-task events need no filter).
  void set_pid_filter(const std::vector<pid_t>& roots, uint32_t first_site = 0);
  bool traced(uint32_t pid) const { return traced_.count(pid) != 0; }
  // Samples dropped because their process was not traced.
  uint64_t foreign() const { return foreign_; }

  // Call stacks for every event (-g); collector outlives the Drainer.
  void set_stack_collector(StackCollector* collector) { stacks_ = collector; }
  // Events written with a stack, and those of them marked truncated.
  uint64_t stacks() const { return stacks_written_; }
  uint64_t truncated_stacks() const { return stacks_truncated_; }

  // Following new mappings (record/resolve/mapping_follower.h): executable mmaps
  // are kept for take_new_mappings(), also without call stacks (then they
  // are not written to the trace: FORMAT.md writes them only with stacks).
  void watch_mappings() { watch_mappings_ = true; }
  std::vector<format::ProcessEvent> take_new_mappings();
  // Sites attached during the recording: counted from now on.
  void add_sites(size_t count);

  // The second event source, drained with the rings; source outlives the Drainer.
  void set_event_source(EventSource* source) { source_ = source; }
  // For the EventSource: an event decoded elsewhere, taken as a sample's,
  // with what its capture holds for its call stack (used with -g only).
  void take_event(const format::Event& event, const StackInputs& stack) { add_event(event, stack); }
  // The time up to which this pass reads (CLOCK_MONOTONIC ns): with call
  // stacks a source leaves later events to the next pass.
  uint64_t pass_ns() const { return pass_ns_; }
  // Room for one packed event (packed_event.h) in the batch being filled;
  // valid only without call stacks (packs()).
  bool packs() const { return stacks_ == nullptr; }
  uint64_t* packed_room() { return batch_.packed.room(kPackedMaxWords); }
  // Keeps the packed event written at packed_room(); false when the pid
  // filter has to look at it (then it is not kept: use take_event).
  bool commit_packed(size_t words);
  // Events the source lost (its ring was full), counted as the kernel's.
  void add_lost(const format::LostEvent& lost);

  // Queues a record that did not come from a buffer (comm at start).
  void add(const format::ProcessEvent& event);
  // Queues the batch being filled now (also one that holds no record but
  // moves the time up to which the trace is complete).
  void flush();
  // Queues a request for the output after everything drained so far.
  void request(OutputRequest request);
  // Queues an empty batch that carries how far the drain has come
  // (EventBatch::drained_through_ns), for a trigger's window to complete in
  // a quiet recording; at most one per interval_ns.
  void send_progress(uint64_t now_ns, uint64_t interval_ns);
  // The time below which every record read so far is queued or in the
  // batch being filled (FORMAT.md 3.9): the last pass's clock reading
  // minus kProgressMargin, and before any sample held back for its process.
  uint64_t complete_before() const { return complete_before_; }
  // A sample takes some microseconds from its time stamp to its place in
  // the ring buffer; a CPU held up in between (an interrupt, a virtual CPU
  // stopped by its host) places it after a pass read the buffer. What the
  // progress states leaves that much room.
  static constexpr uint64_t kProgressMargin = 50'000'000;

  uint64_t events() const { return events_; }
  uint64_t lost() const { return lost_; }
  // Process records (comm, fork, exit, mmap) the kernel dropped because the
  // side band was full. Not events, so not in lost(): what they cost is the
  // names of threads and, with -g, the mappings that stacks of that time
  // are unwound and named against.
  uint64_t lost_process_records() const { return lost_process_records_; }
  const std::vector<uint64_t>& events_per_site() const { return events_per_site_; }
  const std::vector<uint64_t>& lost_per_site() const { return lost_per_site_; }
  // Traced processes seen starting (FORK of a new process) since the last
  // call; kept only once asked for (-p follows them: the session asks for
  // them at every pass), so that a recording that never asks keeps none.
  void keep_new_processes() { keep_new_processes_ = true; }
  std::vector<pid_t> take_new_processes();
  // How many traced processes were seen starting, in all.
  uint64_t forked_processes() const { return forked_processes_; }

  // The threads that had events but no name in the trace (no COMM record, no
  // comm at start: processes that ran before an -a recording began), as
  // (pid, tid) pairs, so the session can name them from /proc.
  std::vector<std::pair<uint32_t, uint32_t>> unnamed_threads() const;

  // The first event of a thread in another PID namespace than the
  // recorder's goes after a pid namespace record (format 1.8) with its
  // numbers there. lookup(pid, tid): thread_namespace() by default; tests
  // give their own.
  using NamespaceLookup = std::function<std::optional<ThreadNamespace>(uint32_t, uint32_t)>;
  void set_namespace_lookup(NamespaceLookup lookup) { namespace_lookup_ = std::move(lookup); }
  uint64_t namespace_records() const { return namespace_records_; }

  // What the tables of threads and processes hold, which exits trim (so that
  // a long recording with process churn keeps them bounded): the threads
  // seen with events, the threads named, the traced processes (pid filter),
  // those whose threads are counted, and the threads' namespaces the kernel
  // gave at their forks.
  struct TableSizes {
    size_t seen_threads = 0;
    size_t named_threads = 0;
    size_t traced_processes = 0;
    size_t counted_processes = 0;
    size_t namespaces_at_fork = 0;
  };
  TableSizes table_sizes() const {
    return {seen_threads_.size(), named_threads_.size(), traced_.size(), live_threads_.size(),
            namespace_at_fork_.size()};
  }

 private:
  void accept(const format::Event& event);
  // What accept() counts of an event already in the batch.
  void count_accepted(uint32_t pid, uint32_t tid, uint32_t site_id, uint64_t time);
  // The first event of a thread (or the first since its tid was given anew).
  void on_new_thread(uint32_t pid, uint32_t tid, uint64_t time);
  // A traced process's fork and exit records keep its live threads counted;
  // the tables forget a thread (and a process) once it has exited, a pass
  // later (forget_exited): its last samples may be drained in the pass that
  // reads its exit.
  void count_threads(const format::ProcessEvent& p);
  void forget_exited();
  bool take_usual(const perf_event_header* record);
  // Any record of a samples' buffer: decoded, then queued or counted.
  void take(const perf_event_header* record);
  // The pass's process records of the side band, read up to its moment by
  // snapshot() and sorted by time: a fork is known before the records of
  // the child, whichever CPU's buffer each came in.
  void apply_process_records();
  // Queues a process record (a traced process's fork makes its child
  // traced); returns it as queued, or nullptr when it is not written.
  const format::ProcessEvent* apply_process(const format::ProcessEvent& p);
  // Accepts the samples that waited in the last pass (their process is
  // traced, or their site needs no filter), drops the others as foreign.
  void settle_waiting();
  // After a pass: moves complete_before() and notes it in the batch,
  // queueing a batch that holds only that once in a while.
  void note_progress();
  // Takes every buffer's snapshot up to now (drain()) and reads the side
  // band's into pass_processes_, sorted by time; counts records read.
  void snapshot(std::vector<RingBuffer>& buffers, size_t& records);
  // A samples' buffer: samples, losses, the recorder's own renames.
  void drain_buffer(RingBuffer& buffer, size_t& records);
  void add_event(const format::Event& event, const StackInputs& stack);
  // An event waiting for its process to be known, its stack copied.
  struct Waiting {
    format::Event event;
    std::vector<uint64_t> stack;
  };
  void wait(const format::Event& event);
  // traced(), remembering the last traced pid: consecutive samples mostly
  // come from one process, and traced pids are never removed.
  bool traced_cached(uint32_t pid) {
    if (pid == last_traced_ && have_last_traced_) return true;
    if (!traced(pid)) return false;
    last_traced_ = pid;
    have_last_traced_ = true;
    return true;
  }

  SampleDecoder& decoder_;
  BatchQueue& queue_;
  EventSource* source_ = nullptr;
  EventBatch batch_;
  uint64_t pass_ns_ = 0;  // the moment the current pass reads up to
  // Every record before this was read by the end of the last pass: the
  // moment the pass before it began (a sample of an unknown process waits
  // one pass before it is taken).
  uint64_t drained_through_ns_ = 0;
  uint64_t previous_pass_ns_ = 0;
  uint64_t progress_sent_ns_ = 0;
  uint64_t batch_pass_ns_ = 0;  // the first pass that left batch_ unsent, 0: none
  uint64_t complete_before_ = 0;
  uint64_t progress_queued_ = 0;  // the complete_before_ns of the last batch queued
  uint64_t events_ = 0;
  uint64_t lost_ = 0;
  uint64_t lost_process_records_ = 0;
  const uint32_t self_pid_ = static_cast<uint32_t>(getpid());
  std::vector<uint64_t> events_per_site_;
  std::vector<uint64_t> lost_per_site_;
  std::vector<pid_t> new_processes_;
  bool keep_new_processes_ = false;
  uint64_t forked_processes_ = 0;
  bool filter_ = false;
  uint32_t first_filtered_site_ = 0;
  size_t side_band_from_ = ~size_t{0};
  bool watch_mappings_ = false;
  std::vector<format::ProcessEvent> new_mappings_;
  std::unordered_set<uint32_t> traced_;
  // Samples of an unknown process, read in this pass, and the samples of
  // their buffer after them (holding_), in buffer order: settled at the
  // next pass, once the side band up to their time has been applied.
  std::vector<Waiting> waiting_;
  bool holding_ = false;  // a sample of the buffer being read waits
  StackCollector* stacks_ = nullptr;
  format::Event stacked_;                             // the event being given its stack
  std::vector<format::ProcessEvent> pass_processes_;  // side band, this pass
  uint64_t stacks_written_ = 0;
  uint64_t stacks_truncated_ = 0;
  uint64_t foreign_ = 0;
  std::unordered_set<uint64_t> seen_threads_;   // pid << 32 | tid of accepted events
  std::unordered_set<uint32_t> named_threads_;  // tids with a comm or exec record
  // Traced processes forked during the recording: their live threads.
  std::unordered_map<uint32_t, uint32_t> live_threads_;
  // Exits read in this pass, and in the one before (forgotten at its end):
  // pid << 32 | tid; a process's own exit (tid == pid) forgets it too.
  std::vector<uint64_t> exited_now_;
  std::vector<uint64_t> exited_before_;
  std::vector<uint32_t> processes_ended_now_;  // traced, every thread gone
  std::vector<uint32_t> processes_ended_before_;
  NamespaceLookup namespace_lookup_;
  uint64_t own_pid_namespace_ = 0;
  // The PID namespace the kernel gave each thread forked during the
  // recording (PERF_RECORD_NAMESPACES), until it exits: pid << 32 | tid.
  // For a traced thread in another namespace, also its ids there, read at
  // the fork record, while it surely runs.
  std::unordered_map<uint64_t, ThreadNamespace> namespace_at_fork_;
  uint64_t namespace_records_ = 0;
  uint64_t last_thread_ = ~uint64_t{0};
  uint32_t last_traced_ = 0;
  bool have_last_traced_ = false;
};

}  // namespace usdt::record
