// The recording session behind run_record_command (record_command.h):
//   resolve the probe specs to sites and plan each site's sample;
//   create the trace file (an unwritable path fails before anything is attached);
//   start the command held before exec, or find the -p processes' threads;
//   open every perf event disabled, enable them all, print the ready line,
//   and only then let the command run;
//   drain the ring buffers on this thread (woken by the buffers' watermark,
//   the stop signals and the --duration timer) while a writer thread encodes;
//   at the end (command exited, every -p process gone, --duration, SIGINT or
//   SIGTERM) disable, drain what is left, write the summary, print the report.
#include "record/session/record_command.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "common/probe_spec.h"
#include "formats/trace_writer.h"
#include "record/attach/background_detach.h"
#include "record/attach/tracefs.h"
#include "record/attach/uprobe_event_group.h"
#include "record/session/batch_queue.h"
#include "record/session/child_process.h"
#include "record/session/drainer.h"
#include "record/session/end_report.h"
#include "record/kernel/event_set.h"
#include "record/kernel/kernel_features.h"
#include "record/resolve/mapping_follower.h"
#include "record/plan/planned_site.h"
#include "record/resolve/probe_resolver.h"
#include "record/session/recording_metadata.h"
#include "record/plan/recording_plan.h"
#include "record/kernel/sample_decoder.h"
#include "record/plan/site_sampling.h"
#include "record/stacks/object_table.h"
#include "record/stacks/stack_collector.h"
#include "record/session/stop_signals.h"
#include "record/resolve/target_processes.h"
#include "record/resolve/task_list.h"
#include "record/session/thread_priority.h"
#include "record/resolve/tracepoint_sites.h"
#include "record/session/writer_thread.h"

namespace usdt::record {
namespace {

// A uretprobe replaces the function's return address with the kernel's
// trampoline, which has no unwind information: a C++ exception thrown
// through such a function cannot be unwound and the program terminates
// (std::terminate; measured on kernel 6.18 with libgcc's unwinder). Said
// once, for C++ functions (their names are demangled, so they hold "(").
void warn_cxx_uretprobes(const std::vector<ResolvedSite>& sites, std::ostream& err) {
  for (const ResolvedSite& s : sites) {
    if (s.kind != format::ProbeKind::uretprobe || s.name.find('(') == std::string::npos) continue;
    err << "usdt-record: warning: uretprobe:" << s.name
        << " is a C++ function: an exception thrown through a function with a uretprobe "
           "terminates the program (the unwinder cannot pass the kernel's return trampoline)\n";
    return;
  }
}

// Batches waiting for the writer: 64 x 8192 events is about 64 MiB.
constexpr size_t kMaxQueuedBatches = 64;
// How often -p liveness is checked when no buffer wakes the loop.
constexpr int kPollMillis = 200;

const std::vector<SiteAttach> kNoSites;

// "1.234" seconds, "12.3" milliseconds (0 for a negative span).
std::string format_seconds(uint64_t from_ns, uint64_t to_ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : 0.0);
  return buf;
}
std::string format_millis(uint64_t from_ns, uint64_t to_ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e6 : 0.0);
  return buf;
}

void print_error(const Error& error) {
  std::cerr << "usdt-record: error: " << error.message() << '\n';
}

// Many probes x threads x CPUs need many fds: use the whole hard limit.
void raise_fd_limit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

class RecordSession {
 public:
  explicit RecordSession(const RecordOptions& options) : options_(options) {}
  int run();

 private:
  Status prepare();
  Status attach();
  Status attach_process(pid_t pid);
  Status loop();
  bool targets_alive();
  // Attaches the probes of files the traced processes mapped since the
  // last pass (record/resolve/mapping_follower.h).
  void follow_new_mappings();
  Status attach_all_processes();
  Status attach_added_sites(const std::vector<ResolvedSite>& found, const std::string& path,
                            uint64_t mapped_ns);
  void warn_never_matched() const;
  void name_unnamed_threads();
  // Records need the event id only to tell several sites apart.
  bool identifier() const { return follower_ != nullptr || plan_.sites.size() > 1; }
  void warn_stack_misses() const;
  int finish(bool failed);
  // Samples the kernel delivered that the recorder did not write, by cause
  // (zero counts included: the trace says what was checked).
  std::vector<std::pair<std::string, uint64_t>> dropped_by_cause() const;
  // Closes the events, then ends the command if it still runs (SIGTERM, then
  // SIGKILL after 2 s). Returns the command's exit status, 0 if it was ended.
  int end_command();
  // Closes every perf event (slow in the kernel; says so when it will be).
  void release_events();
  // -g: the symbols of every file that appears in a recorded stack.
  std::vector<format::ObjectTable> stack_objects() const;

  const RecordOptions& options_;
  KernelFeatures features_;
  std::vector<format::ProbeSite> probe_sites_;
  std::vector<SiteAttach> attach_;
  std::optional<format::TraceWriter> writer_;
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
  std::unique_ptr<SampleDecoder> decoder_;
  std::unique_ptr<StackCollector> stacks_;  // -g
  std::unique_ptr<MappingFollower> follower_;  // PROVIDER:NAME specs in libraries loaded later
  size_t ids_registered_ = 0;
  BatchQueue queue_{kMaxQueuedBatches};
  std::unique_ptr<Drainer> drainer_;
  std::unique_ptr<WriterThread> writer_thread_;
  std::set<pid_t> live_;  // -p: the processes we wait for
  std::optional<int> child_status_;
  uint64_t start_ns_ = 0;
  uint64_t end_ns_ = 0;
};

Status RecordSession::prepare() {
  Result<KernelFeatures> features = probe_kernel_features();
  if (!features) return features.error();
  features_ = std::move(*features);
  raise_fd_limit();
  if (options_.call_graph.enabled()) {
    Result<std::unique_ptr<StackCollector>> stacks = StackCollector::create(options_.call_graph);
    if (!stacks) return stacks.error();
    stacks_ = std::move(*stacks);
    features_.mmap_build_id = probe_mmap_build_id();
  }

  SearchScope scope;
  if (!options_.command.empty()) {
    scope.command_binary = find_in_path(options_.command[0]);
    if (scope.command_binary.empty()) {
      return Error("cannot run '" + options_.command[0] + "': command not found");
    }
  }
  scope.pids = options_.pids;
  for (pid_t pid : options_.pids) {
    if (!process_alive(pid)) return Error("no process with PID " + std::to_string(pid));
  }
  std::vector<std::string> tracepoint_specs, probe_specs;
  split_tracepoint_specs(options_.probes, tracepoint_specs, probe_specs);
  // PROVIDER:NAME specs are also looked for in every file the traced
  // processes map later (dlopen()).
  std::vector<std::string> follow_specs;
  for (const std::string& text : probe_specs) {
    Result<ProbeSpec> spec = ProbeSpec::parse(text);
    if (spec && spec->kind == ProbeKind::usdt && spec->path.empty()) follow_specs.push_back(text);
  }
  scope.follow = !follow_specs.empty();
  // -a: PROVIDER:NAME is looked for in what every running process maps now,
  // and in what any process maps later.
  if (options_.all && scope.follow) {
    for (pid_t pid : list_processes()) {
      if (pid != getpid()) scope.pids.push_back(pid);
    }
  }
  ResolveNotes notes;
  Result<std::vector<ResolvedSite>> resolved = std::vector<ResolvedSite>();
  if (!probe_specs.empty()) {
    resolved = resolve_probes(probe_specs, scope, options_.max_functions, &notes);
  }
  if (!resolved) return resolved.error();
  for (const std::string& w : notes.warnings) {
    if (!options_.quiet) std::cerr << "usdt-record: warning: " << w << '\n';
  }
  if (scope.follow) {
    std::vector<std::string> waiting;
    for (const auto& [spec, why] : notes.waiting) {
      waiting.push_back(spec);
      if (options_.quiet) continue;
      // The error's dlopen() hint does not apply: this is what is done about it.
      std::string first = why.substr(0, why.find("\nhint:"));
      std::cerr << "usdt-record: warning: " << first
                << "; waiting for a library loaded later that has it\n";
    }
    follower_ = std::make_unique<MappingFollower>(std::move(follow_specs), waiting);
    for (const std::string& path : notes.searched) follower_->mark_searched(path);
  }
  if (!options_.pids.empty() && !resolved->empty()) {
    std::vector<std::string> warnings;
    if (Status s = check_pids_map_sites(options_.pids, *resolved, warnings); !s) return s;
    for (const std::string& w : warnings) {
      if (!options_.quiet) std::cerr << "usdt-record: warning: " << w << '\n';
    }
  }

  if (!options_.quiet) warn_cxx_uretprobes(*resolved, std::cerr);

  // Tracepoints are found, by name, in tracefs: it is needed before planning.
  std::optional<TracefsMount> tracefs;
  if (!tracepoint_specs.empty()) {
    Result<TracefsMount> mount = TracefsMount::open();
    if (!mount) return tracefs_unavailable(mount.error());
    tracefs.emplace(std::move(*mount));
    Result<std::vector<ResolvedSite>> tracepoints =
        resolve_tracepoints(tracefs->dir(), tracepoint_specs);
    if (!tracepoints) return tracepoints.error();
    if (!options_.quiet) warn_fields_left_out(*tracepoints, std::cerr);
    resolved->insert(resolved->end(), tracepoints->begin(), tracepoints->end());
  }

  Result<RecordingPlan> plan =
      plan_recording(options_, *resolved, std::cerr, std::move(tracefs), follower_ != nullptr);
  if (!plan) return plan.error();
  plan_ = std::move(*plan);
  if (!options_.quiet) {
    warn_function_arg_fallbacks(plan_.sites, std::cerr);
    warn_missing_args(plan_.sites, std::cerr);
    warn_relro_semaphores(plan_.sites, std::cerr);
  }

  std::vector<SiteDecoding> decodings;
  for (uint32_t id = 0; id < plan_.sites.size(); ++id) {
    probe_sites_.push_back(to_probe_site(plan_.sites[id], id));
    attach_.push_back(to_site_attach(plan_.sites[id], id));
    decodings.push_back(to_site_decoding(plan_.sites[id], id));
    decodings.back().string_bytes = options_.string_bytes;
    add_stack_sampling(options_.call_graph, attach_.back().config, decodings.back());
  }
  decoder_ = std::make_unique<SampleDecoder>(std::move(decodings), identifier());

  // The file comes before any attach: an unwritable path costs nothing.
  // Chunks are flushed by size as well as once a second (writer_thread.h):
  // 256 KiB of payload, a few tens of KiB compressed, so that a full disk
  // loses at most that last chunk even at a high event rate.
  format::WriterOptions writer_options;
  writer_options.chunk_bytes = 256 * 1024;
  Result<format::TraceWriter> writer =
      format::TraceWriter::create(options_.output, make_metadata(), probe_sites_, writer_options);
  if (!writer) return writer.error();
  writer_ = std::move(*writer);
  return Status::success();
}

Status RecordSession::attach_process(pid_t pid) {
  // Threads that exist now each get a tracking event; threads they create later
  // are followed through inherit. Threads born between the listing and the
  // open are caught by listing again until nothing new appears.
  std::set<pid_t> attached;
  for (int round = 0; round < 100; ++round) {
    bool added = false;
    for (pid_t tid : list_threads(pid)) {
      if (attached.count(tid) != 0) continue;
      Status s = events_->add_target(tid, true, true, plan_.per_task ? attach_ : kNoSites);
      if (!s) {
        if (tid != pid && (s.error().errno_value() == ESRCH || !process_alive(pid))) continue;
        return s.error().context("cannot attach to PID " + std::to_string(pid) + " thread " +
                                 std::to_string(tid));
      }
      attached.insert(tid);
      added = true;
      format::ProcessEvent comm;
      comm.time_ns = clock_ns(CLOCK_MONOTONIC);
      comm.kind = format::ProcessEventKind::comm;
      comm.pid = static_cast<uint32_t>(pid);
      comm.tid = static_cast<uint32_t>(tid);
      comm.comm = read_comm(pid, tid);
      drainer_->add(comm);
    }
    if (!added) break;
  }
  if (attached.empty()) return Error("no process with PID " + std::to_string(pid));
  live_.insert(pid);
  return Status::success();
}

Status RecordSession::attach() {
  Result<StopSignals> signals = StopSignals::install();
  if (!signals) return signals.error();
  signals_ = std::move(*signals);

  const uint32_t pages =
      ring_buffer_pages(options_.call_graph, options_.buffer_pages, options_.buffer_pages_given,
                        features_.cpus.size(), static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  Result<EventSet> events = EventSet::create(features_, pages, identifier(),
                                             options_.call_graph.enabled() || follower_);
  if (!events) return events.error();
  events_ = std::move(*events);
  drainer_ = std::make_unique<Drainer>(*decoder_, queue_, plan_.sites.size());
  drainer_->set_stack_collector(stacks_.get());
  drainer_->set_side_band_from(events_->side_band_from());
  if (follower_) drainer_->watch_mappings();

  if (plan_.tracefs) {
    Result<UprobeEventGroup> group = define_tracefs_events(plan_, attach_, *decoder_, std::cerr,
                                                           options_.all ? &gone_ : nullptr);
    if (!group) return group.error();
    group_.emplace(std::move(*group));
  }
  if (!options_.command.empty()) {
    Result<ChildProcess> child = ChildProcess::spawn(options_.command);
    if (!child) return child.error();
    child_.emplace(std::move(*child));
    if (Status s = events_->add_target(child_->pid(), true, true, plan_.per_task ? attach_ : kNoSites);
        !s) {
      return s;
    }
    if (!plan_.per_task) drainer_->set_pid_filter({child_->pid()});
    // Sites of libraries loaded later are opened system-wide (attach_added_sites).
    if (plan_.per_task && follower_) {
      drainer_->set_pid_filter({child_->pid()}, static_cast<uint32_t>(plan_.sites.size()));
    }
  } else if (!options_.all) {
    for (pid_t pid : options_.pids) {
      if (Status s = attach_process(pid); !s) return s;
    }
    if (!plan_.per_task) drainer_->set_pid_filter(options_.pids);
    if (plan_.per_task && follower_) {
      drainer_->set_pid_filter(options_.pids, static_cast<uint32_t>(plan_.sites.size()));
    }
  }
  // Without tracefs, uprobe-PMU events cannot be inherited (event_set.h):
  // system-wide, and with -- and -p the drainer keeps only the traced
  // processes' samples.
  if (!plan_.per_task && !options_.all) {
    if (Status s = events_->add_target(-1, false, false, attach_); !s) return s;
  } else if (!plan_.per_task) {
    if (Status s = attach_all_processes(); !s) return s;
  }
  for (; ids_registered_ < events_->ids().size(); ++ids_registered_) {
    decoder_->add_event(events_->ids()[ids_registered_].first,
                        events_->ids()[ids_registered_].second);
  }
  // Idle while it keeps up, so a busy workload is not slowed by the
  // encoding (writer_thread.h); only when it can be raised again.
  writer_thread_ = std::make_unique<WriterThread>(
      std::move(*writer_), queue_,
      can_leave_idle_priority() ? WriterThread::Priority::idle : WriterThread::Priority::normal);
  writer_.reset();

  // Every event on before anyone is told we are ready (with -a a semaphore
  // rises with the first event, FIELD-NOTES.md), and before the command runs.
  if (Status s = events_->enable_all(); !s) return s;
  start_ns_ = clock_ns(CLOCK_MONOTONIC);
  if (stacks_) {
    // The mappings of the processes running now, taken once the mmap records
    // are on (later ones come as MMAP2, exec and fork records): the -p
    // processes; with -a every process, since any may hit a probe and a
    // short-lived one may be gone before its first sample is drained.
    std::vector<pid_t> running = options_.all ? list_processes() : options_.pids;
    for (pid_t pid : running) {
      if (pid == getpid()) continue;
      for (const format::ProcessEvent& e : stacks_->seed(static_cast<uint32_t>(pid), start_ns_)) {
        drainer_->add(e);
      }
    }
    drainer_->flush();
  }
  if (!options_.quiet) {
    size_t tracepoints = static_cast<size_t>(
        std::count_if(plan_.sites.begin(), plan_.sites.end(), [](const PlannedSite& p) {
          return p.resolved.kind == format::ProbeKind::tracepoint;
        }));
    size_t uprobes = plan_.sites.size() - tracepoints;
    std::cerr << "usdt-record: recording ";
    if (uprobes != 0 || tracepoints == 0) {
      std::cerr << uprobes << " probe site" << (uprobes == 1 ? "" : "s") << " in "
                << plan_.file_count << " file" << (plan_.file_count == 1 ? "" : "s");
      if (tracepoints != 0) std::cerr << " and ";
    }
    if (tracepoints != 0) {
      std::cerr << tracepoints << " tracepoint" << (tracepoints == 1 ? "" : "s");
    }
    std::cerr << "; Ctrl-C to end" << std::endl;
  }
  // After the fork of the command: pages touched before it would fault
  // again, copy-on-write, at their first write in the drain loop.
  drainer_->prepare_batches();
  if (child_) {
    if (Status s = child_->release(); !s) return s;
  }
  return Status::success();
}

bool RecordSession::targets_alive() {
  for (pid_t pid : drainer_->take_new_processes()) live_.insert(pid);
  for (auto it = live_.begin(); it != live_.end();) {
    it = process_alive(*it) ? std::next(it) : live_.erase(it);
  }
  return !live_.empty();
}

Status RecordSession::loop() {
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return errno_error("cannot create an epoll instance");
  auto watch = [&](int fd) -> Status {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0) return errno_error("epoll_ctl failed");
    return Status::success();
  };
  for (RingBuffer& b : events_->buffers()) {
    if (Status s = watch(b.fd()); !s) return s;
  }
  if (Status s = watch(signals_->fd()); !s) return s;
  UniqueFd timer;
  if (options_.duration_seconds) {
    timer.reset(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!timer) return errno_error("cannot create a timer");
    double secs = *options_.duration_seconds;
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(secs);
    spec.it_value.tv_nsec = static_cast<long>((secs - std::floor(secs)) * 1e9);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    if (timerfd_settime(timer.get(), 0, &spec, nullptr) != 0)
      return errno_error("cannot set the timer");
    if (Status s = watch(timer.get()); !s) return s;
  }

  const bool follow_pids = !options_.pids.empty() && options_.command.empty();
  uint64_t next_liveness = 0;
  epoll_event ready[16];
  for (;;) {
    int n = epoll_wait(epoll.get(), ready, 16, kPollMillis);
    if (n < 0 && errno != EINTR) return errno_error("epoll_wait failed");
    writer_thread_->pass_begins();  // ended by keep_up() below
    bool stop = false;
    for (int i = 0; i < n; ++i) {
      if (ready[i].data.fd == signals_->fd()) {
        bool child_exited = false;
        if (signals_->read_pending(child_exited)) stop = true;
        int status;
        if (child_exited && child_ && child_->try_wait(status)) {
          child_status_ = status;
          stop = true;
        }
      } else if (timer && ready[i].data.fd == timer.get()) {
        stop = true;
      }
    }
    drainer_->drain(events_->buffers());
    if (follower_) follow_new_mappings();
    writer_thread_->keep_up();
    if (writer_thread_->failed()) return Status::success();  // reported by finish()
    if (stop) return Status::success();
    if (child_) {
      int status;
      if (child_->try_wait(status)) {
        child_status_ = status;
        return Status::success();
      }
    }
    if (follow_pids) {
      uint64_t now = clock_ns(CLOCK_MONOTONIC);
      if (now >= next_liveness) {
        next_liveness = now + kPollMillis * 1000000ull;
        if (!targets_alive()) return Status::success();
      }
    }
  }
}

// -a: the process tracking on every CPU, then each site on its own. The
// sites of files that only running processes named (PROVIDER:NAME searched
// in what each maps) may be gone by now: a process that exited, a library
// deleted, reached through /proc/PID. Those are left out with a warning,
// not the whole recording.
Status RecordSession::attach_all_processes() {
  if (Status s = events_->add_target(-1, false, true, kNoSites); !s) return s;
  for (size_t i = 0; i < attach_.size(); ++i) {
    // A file found in a running process at the start may be gone by the
    // attach, or by the definition of its tracefs event (gone_): the
    // process exited (the file reached through /proc/PID/root) or the file
    // was deleted after its last user unmapped it (seen in CI: another
    // test's own copy of a library, removed at its end). Such a site is left
    // out with a warning; any other failure ends the start.
    const ResolvedSite& site = plan_.sites[i].resolved;
    const bool undefined = i < gone_.size() && gone_[i];
    if (!undefined) {
      Status s = events_->add_target(-1, false, false, {attach_[i]});
      if (s) continue;
      if (!site_file_gone(site)) return s;
    }
    if (!options_.quiet) {
      std::cerr << "usdt-record: warning: " << site.provider << ':' << site.name << " in "
                << site.path << ": the file, or the process it was found in, is gone ("
                << site.open_path << "): not recorded\n";
    }
  }
  return Status::success();
}

void RecordSession::follow_new_mappings() {
  // Per file: its sites and when a traced process mapped it.
  for (const format::ProcessEvent& mmap : drainer_->take_new_mappings()) {
    std::vector<ResolvedSite> found = follower_->examine(mmap);
    if (found.empty()) continue;
    if (Status s = attach_added_sites(found, mmap.path, mmap.time_ns); !s && !options_.quiet) {
      std::cerr << "usdt-record: warning: " << s.error().message() << ": not recorded\n";
    }
  }
}

// The sites of a library mapped during the recording are opened system-wide
// (pid -1 on every CPU, like -a) and the Drainer keeps the traced processes'
// samples: per traced thread, a late open would have to find every thread
// and child that exists at that moment, racing with their fork()s (a child
// forked after the open inherits the event, one forked before does not, and
// both would count the same hit twice or not at all), and it would take
// threads x CPUs opens while the program runs on unrecorded.
Status RecordSession::attach_added_sites(const std::vector<ResolvedSite>& found,
                                         const std::string& path, uint64_t mapped_ns) {
  const uint32_t first = static_cast<uint32_t>(plan_.sites.size());
  Result<std::vector<PlannedSite>> planned =
      plan_added_sites(options_, found, plan_.tracefs.has_value());
  if (!planned) return planned.error().context(path);
  if (!options_.quiet) {
    // What the start says of the sites it found, said of these too.
    warn_missing_args(*planned, std::cerr);
    warn_relro_semaphores(*planned, std::cerr);
  }
  std::vector<PlannedSite> sites;
  std::vector<SiteAttach> attach;
  std::vector<SiteDecoding> decodings;
  std::optional<Error> first_failure;
  size_t failures = 0;
  for (PlannedSite& site : *planned) {
    const uint32_t id = first + static_cast<uint32_t>(sites.size());
    SiteAttach a = to_site_attach(site, id);
    SiteDecoding d = to_site_decoding(site, id);
    d.string_bytes = options_.string_bytes;
    add_stack_sampling(options_.call_graph, a.config, d);
    if (site.sampling.needs_kernel_reads()) {
      if (!group_) group_.emplace(UprobeEventGroup::for_this_process(plan_.tracefs->dir()));
      Result<std::vector<RawArg>> layout = define_added_site(site, id, *group_, a);
      if (!layout) {
        // This site only: the others of the file are still worth having.
        if (failures++ == 0) first_failure = layout.error();
        continue;
      }
      d.raw_args = std::move(*layout);
    }
    sites.push_back(std::move(site));
    attach.push_back(std::move(a));
    decodings.push_back(std::move(d));
  }
  if (first_failure && !options_.quiet) {
    std::cerr << "usdt-record: warning: " << first_failure->message() << ": not recorded";
    if (failures > 1) std::cerr << " (nor " << failures - 1 << " more sites of " << path << ")";
    std::cerr << '\n';
  }
  if (sites.empty()) return Status::success();
  const size_t first_event = events_->event_count();
  if (Status s = events_->add_target(-1, false, false, attach); !s) {
    return s.error().context("cannot attach the probes of " + path);
  }
  // Opened: from here on the sites are the recording's.
  for (uint32_t i = 0; i < sites.size(); ++i) {
    decoder_->add_site(std::move(decodings[i]));
    probe_sites_.push_back(to_probe_site(sites[i], first + i));
    plan_.sites.push_back(std::move(sites[i]));
    attach_.push_back(std::move(attach[i]));
  }
  for (; ids_registered_ < events_->ids().size(); ++ids_registered_) {
    decoder_->add_event(events_->ids()[ids_registered_].first,
                        events_->ids()[ids_registered_].second);
  }
  drainer_->add_sites(sites.size());
  if (Status s = events_->enable_from(first_event); !s) return s.error().context(path);
  const uint64_t active_ns = clock_ns(CLOCK_MONOTONIC);
  // The sites go to the writer ahead of any of their events: those are
  // still in the ring buffers, read in the next pass. The records read
  // before go ahead of the sites, as they came.
  drainer_->flush();
  EventBatch added = queue_.take_empty();
  for (uint32_t id = first; id < probe_sites_.size(); ++id) {
    probe_sites_[id].active_since_ns = active_ns;
    added.added_sites.push_back(probe_sites_[id]);
  }
  added.added_since_ns = active_ns;
  queue_.push(std::move(added));
  if (!options_.quiet) {
    std::cerr << "usdt-record: attached " << sites.size() << " probe site"
              << (sites.size() == 1 ? "" : "s") << " in " << path << ", mapped at +"
              << format_seconds(start_ns_, mapped_ns) << " s, active "
              << format_millis(mapped_ns, active_ns) << " ms later" << std::endl;
  }
  return Status::success();
}

void RecordSession::warn_never_matched() const {
  if (!follower_) return;
  for (const std::string& spec : follower_->never_matched()) {
    std::cerr << "usdt-record: warning: probe '" << spec << "' matched nothing: no file the "
              << (options_.all ? "processes" : "traced processes") << " mapped has it ("
              << follower_->files_examined() << " files mapped during the recording examined)\n";
  }
}

// Stack operands whose address turned out, at run time, to lie outside the
// sampled stack (GCC -O0 leaf functions keep locals below %rsp, in the red
// zone, which no user stack dump holds).
void RecordSession::warn_stack_misses() const {
  const auto& misses = decoder_->stack_misses();
  std::set<std::string> said;
  for (size_t site = 0; site < misses.size() && site < plan_.sites.size(); ++site) {
    for (size_t arg = 0; arg < misses[site].size(); ++arg) {
      if (misses[site][arg] == 0) continue;
      const ResolvedSite& r = plan_.sites[site].resolved;
      std::string line = r.provider + ":" + r.name + " arg " + std::to_string(arg) + " (" +
                         r.args[arg].text +
                         ") was outside the sampled stack (below %rsp, or "
                         "beyond --stack-bytes) in " +
                         std::to_string(misses[site][arg]) + " samples: recorded as missing";
      if (said.insert(line).second) std::cerr << "usdt-record: warning: " << line << '\n';
    }
  }
}

// Threads with events but no name in the trace ran before the recording and
// never exec'd or renamed themselves during it (typical with -a): name them
// from /proc while they still exist, as of the start of the recording.
void RecordSession::name_unnamed_threads() {
  for (auto [pid, tid] : drainer_->unnamed_threads()) {
    std::string comm = read_comm(static_cast<pid_t>(pid), static_cast<pid_t>(tid));
    if (comm.empty()) continue;
    format::ProcessEvent e;
    e.time_ns = start_ns_;
    e.kind = format::ProcessEventKind::comm;
    e.pid = pid;
    e.tid = tid;
    e.comm = std::move(comm);
    drainer_->add(e);
  }
  drainer_->flush();
}

std::vector<std::pair<std::string, uint64_t>> RecordSession::dropped_by_cause() const {
  uint64_t corrupt = 0;
  if (events_) {
    for (const RingBuffer& b : events_->buffers()) corrupt += b.corrupt_skips();
  }
  return {{"malformed", decoder_->malformed()},
          {"unknown_event_id", decoder_->unknown_ids()},
          {"corrupt_ring_tail", corrupt},
          {"foreign_process", drainer_->foreign()},
          {format::kLostProcessRecords, drainer_->lost_process_records()}};
}

int RecordSession::finish(bool failed) {
  end_ns_ = clock_ns(CLOCK_MONOTONIC);
  if (events_) {
    events_->disable_all();
    events_->flush_pending_losses();
    // Disabled events write nothing more: drain until a pass is empty.
    if (drainer_) {
      // (A pass the watchdog watches: writer_thread.h.)
      if (writer_thread_) writer_thread_->pass_begins();
      drainer_->drain_to_end(events_->buffers());
      name_unnamed_threads();
    }
  }
  if (!writer_thread_) return 1;
  format::TraceSummary summary;
  summary.end_monotonic_ns = end_ns_;
  summary.events = drainer_->events();
  summary.lost = drainer_->lost();
  summary.events_per_site = drainer_->events_per_site();
  summary.lost_per_site = drainer_->lost_per_site();
  summary.dropped = dropped_by_cause();
  Status written = writer_thread_->finish(summary, stack_objects());
  if (!written) {
    print_error(written.error().context("recording stopped"));
    std::cerr << "usdt-record: what was written before the error stays readable in "
              << options_.output << '\n';
    end_command();
    return 1;
  }
  if (failed) {
    end_command();
    return 1;
  }
  if (!options_.quiet) {
    warn_stack_misses();
    warn_never_matched();
    EndReport report;
    report.output = options_.output;
    report.events = drainer_->events();
    report.lost = drainer_->lost();
    report.bytes = writer_thread_->bytes_written();
    report.seconds = static_cast<double>(end_ns_ - start_ns_) / 1e9;
    report.start_ns = start_ns_;
    report.end_ns = end_ns_;
    report.sites = probe_sites_;
    report.events_per_site = drainer_->events_per_site();
    report.lost_per_site = drainer_->lost_per_site();
    report.dropped = summary.dropped;
    report.call_stacks = stacks_ != nullptr;
    report.stacks = drainer_->stacks();
    report.truncated_stacks = drainer_->truncated_stacks();
    print_end_report(report, std::cerr);
  }
  return end_command();
}

std::vector<format::ObjectTable> RecordSession::stack_objects() const {
  std::vector<format::ObjectTable> tables;
  if (!stacks_) return tables;
  for (const StackObject& object : stacks_->objects()) {
    Result<format::ObjectTable> table = build_object_table(object);
    if (!table) {
      if (!options_.quiet) {
        std::cerr << "usdt-record: warning: no symbols for the frames in " << object.path << ": "
                  << table.error().message() << '\n';
      }
      continue;
    }
    tables.push_back(std::move(*table));
  }
  return tables;
}

int RecordSession::end_command() {
  release_events();
  if (!child_) return 0;
  int status;
  if (!child_status_ && child_->try_wait(status)) child_status_ = status;
  if (child_status_) return *child_status_;
  // Stopped by --duration, a signal or a write error while the command still
  // runs: end it, firmly if it does not listen within two seconds.
  kill(child_->pid(), SIGTERM);
  for (int waited = 0; !child_->try_wait(status); ++waited) {
    if (waited == 200) kill(child_->pid(), SIGKILL);
    usleep(10000);
  }
  return 0;
}

void RecordSession::release_events() {
  if (!events_) return;
  // Closing the last reference of a uprobe's perf event takes the kernel a
  // grace period per probe (background_detach.h): a child does it after we
  // exit, and deletes our tracefs events and mount then.
  // Each site's tracefs event is deleted as soon as its perf events are
  // closed, so that another recorder starting meanwhile finds none of ours
  // to take for a dead recorder's.
  const EventSet* events = &*events_;
  UprobeEventGroup* group = group_ ? &*group_ : nullptr;
  TracefsMount* tracefs = plan_.tracefs ? &*plan_.tracefs : nullptr;
  std::vector<int> release_fds = events->site_fds();
  if (group != nullptr) release_fds.push_back(group->lock_fd());
  bool detached = detach_after_exit(
      [events, group] {
        if (group == nullptr) return;
        std::vector<std::string> names = group->names();  // "s<site id>"
        for (const std::string& name : names) {
          events->close_site_fds(static_cast<uint32_t>(std::strtoul(name.c_str() + 1, nullptr, 10)));
          group->delete_one(name);
        }
        group->delete_all();  // forgets the deleted ones, retries the rest
      },
      [tracefs] {
        if (tracefs != nullptr) tracefs->unmount_if_ours();
      },
      std::move(release_fds), plan_.tracefs ? TracefsMount::use_lock_fd() : -1);
  if (detached) {
    if (group_) group_->release();
    if (plan_.tracefs) plan_.tracefs->release();
  } else if (!options_.quiet && events_->event_count() >= 20) {
    std::cerr << "usdt-record: detaching " << events_->event_count()
              << " perf events (the kernel takes up to 0.1 s for each probe)" << std::endl;
  }
  events_.reset();
}

int RecordSession::run() {
  if (Status s = prepare(); !s) {
    print_error(s.error());
    return 1;
  }
  if (Status s = attach(); !s) {
    print_error(s.error());
    // Nothing was recorded: leave no half-made trace behind.
    writer_thread_.reset();
    writer_.reset();
    unlink(options_.output.c_str());
    return 1;
  }
  if (Status s = loop(); !s) {
    print_error(s.error());
    finish(true);
    return 1;
  }
  return finish(false);
}

}  // namespace

int run_record_command(const RecordOptions& options) {
  // -p ids become processes first: a thread id stands for its process.
  RecordOptions targets = options;
  std::vector<std::string> notes;
  Result<std::vector<pid_t>> pids = resolve_target_pids(options.pids, notes);
  if (!pids) {
    print_error(pids.error());
    return 1;
  }
  targets.pids = std::move(*pids);
  for (const std::string& note : notes) {
    if (!options.quiet) std::cerr << "usdt-record: note: " << note << '\n';
  }
  RecordSession session(targets);
  return session.run();
}

}  // namespace usdt::record
