// The session's attach (record_session.h): the stop signals, the perf
// events (disabled), the tracefs events, the command held before exec or
// the -p processes' threads, and then the start: every event enabled, the
// "recording" line, the command let go.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "record/attach/attach_turns.h"
#include "record/attach/uprobe_event_group.h"
#include "record/diagnostics.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/task_list.h"
#include "record/session/record_session.h"
#include "record/session/recording_metadata.h"
#include "record/session/thread_priority.h"

namespace usdt::record {
namespace {

const std::vector<SiteAttach> kNoSites;

// Writer hooks that throw where the test asked (TestFault).
WriterThread::Hooks hooks_for(TestFault fault) {
  WriterThread::Hooks hooks;
  if (fault == TestFault::writer) hooks.before_batch = [] { throw std::bad_alloc(); };
  if (fault == TestFault::watchdog) hooks.watchdog_look = [] { throw std::bad_alloc(); };
  return hooks;
}

}  // namespace

Status RecordSession::attach() {
  const OutputPolicy& policy = options_.output_policy;
  // SIGUSR2 takes a snapshot, or starts the next file of any series.
  Result<StopSignals> signals = StopSignals::install(policy.flight.enabled || policy.series());
  if (!signals) return signals.error();
  signals_ = std::move(*signals);
  if (policy.control) {
    if (Status s = ControlFifo::open(*policy.control, control_); !s) return s;
  }

  const uint32_t pages =
      ring_buffer_pages(options_.call_graph, options_.buffer_pages, options_.buffer_pages_given,
                        features_.cpus.size(), static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  Result<EventSet> events =
      EventSet::create(features_, pages, identifier(), options_.call_graph.enabled() || follower_);
  if (!events) return events.error();
  events_ = std::move(*events);
  drainer_ = std::make_unique<Drainer>(*decoder_, queue_, plan_.sites.size());
  drainer_->set_stack_collector(stacks_.get());
  drainer_->set_side_band_from(events_->side_band_from());
  if (follower_) drainer_->watch_mappings();

  // From the first tracefs definition to the last event enabled: a
  // detacher closing another recording's events waits (attach_turns.h).
  attach_turn_.emplace(AttachTurn::take());
  attach_wait_ns_ = attach_turn_->waited_ns();
  if (attach_turn_->gave_up() && !options_.quiet) {
    warning(std::cerr) << "another recording's clean-up kept its turn for 2 s: attaching without "
                          "waiting for it\n";
  }
  if (plan_.tracefs) {
    Result<UprobeEventGroup> group =
        define_tracefs_events(plan_, attach_, *decoder_, options_.all ? &gone_ : nullptr);
    if (!group) return group.error();
    group_.emplace(std::move(*group));
  }
  if (bpf_source_) drainer_->set_event_source(bpf_source_.get());
  if (Status s = attach_targets(); !s) return s;
  if (Status s = attach_capture_hosts(); !s) return s;
  register_event_ids();
  // Idle while it keeps up, so a busy workload is not slowed by the
  // encoding (writer_thread.h); only when it can be raised again.
  writer_thread_ = std::make_unique<WriterThread>(
      std::move(sink_), queue_,
      can_leave_idle_priority() ? WriterThread::Priority::idle : WriterThread::Priority::normal,
      hooks_for(fault_), std::chrono::milliseconds(options_.live_fleet.flush_interval_ms));
  return start_recording();
}

Status RecordSession::attach_targets() {
  if (!options_.command.empty()) {
    if (Status s = attach_command(); !s) return s;
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
    return events_->add_target(-1, false, false, attach_);
  }
  if (!plan_.per_task) return attach_all_processes();
  return Status::success();
}

Status RecordSession::attach_command() {
  Result<ChildProcess> child = ChildProcess::spawn(options_.command, output_is_stdout_);
  if (!child) return child.error();
  child_.emplace(std::move(*child));
  if (Status s =
          events_->add_target(child_->pid(), true, true, plan_.per_task ? attach_ : kNoSites);
      !s) {
    return s;
  }
  if (!plan_.per_task) drainer_->set_pid_filter({child_->pid()});
  // Sites of libraries loaded later are opened system-wide (attach_added_sites).
  if (plan_.per_task && follower_) {
    drainer_->set_pid_filter({child_->pid()}, static_cast<uint32_t>(plan_.sites.size()));
  }
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
      warning(std::cerr) << site.provider << ':' << site.name << " in "
                << site.path << ": the file, or the process it was found in, is gone ("
                << site.open_path << "): not recorded\n";
    }
  }
  return Status::success();
}

Status RecordSession::start_recording() {
  // Every event on before anyone is told we are ready (with -a a semaphore
  // rises when the first event registers, before the others are enabled),
  // and before the command
  // runs. The recording starts before the first event is enabled: no event
  // has an earlier time.
  start_ns_ = clock_ns(CLOCK_MONOTONIC);
  // The capture program runs at the hits of a probe from the moment its
  // event exists, enabled or not: its records start here.
  if (bpf_) bpf_->arm(true);
  output_->set_enabled_ns(start_ns_);
  if (Status s = events_->enable_all(); !s) return s;
  armed_ns_ = clock_ns(CLOCK_MONOTONIC);
  attach_turn_.reset();
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
  if (!options_.quiet) print_recording_line();
  // (Before the thread below opens anything: the tests compare this count
  // with the one at the end.)
  if (std::getenv("USDT_RECORD_TEST_TABLES") != nullptr) print_table_sizes("at the start");
  remove_stale_groups_meanwhile();
  // After the fork of the command: pages touched before it would fault
  // again, copy-on-write, at their first write in the drain loop.
  drainer_->prepare_batches();
  if (child_) {
    if (Status s = child_->release(); !s) return s;
  }
  return Status::success();
}

void RecordSession::print_recording_line() const {
  size_t tracepoints = static_cast<size_t>(std::count_if(
      plan_.sites.begin(), plan_.sites.end(),
      [](const PlannedSite& p) { return p.resolved.kind == format::ProbeKind::tracepoint; }));
  size_t uprobes = plan_.sites.size() - tracepoints;
  std::cerr << "usdt-record: recording ";
  if (uprobes != 0 || tracepoints == 0) {
    std::cerr << uprobes << " probe site" << (uprobes == 1 ? "" : "s") << " in " << plan_.file_count
              << " file" << (plan_.file_count == 1 ? "" : "s");
    if (tracepoints != 0) std::cerr << " and ";
  }
  if (tracepoints != 0) {
    std::cerr << tracepoints << " tracepoint" << (tracepoints == 1 ? "" : "s");
  }
  std::cerr << "; Ctrl-C to end" << std::endl;
}

// A killed recorder's groups (uprobe_event_group.h) go, whatever this
// recording needs of tracefs, but not before it records: listing and
// deleting them takes the kernel's event_mutex, which another recording's
// detacher holds through each of its closes (attach_turns.h), and waiting
// for it kept back-to-back recordings blind for most of a second. They are
// disarmed and cost nothing meanwhile.
void RecordSession::remove_stale_groups_meanwhile() {
  std::string dir = plan_.tracefs ? plan_.tracefs->dir() : std::string();
  stale_cleanup_ = std::jthread([dir] {
    std::ostringstream said;
    if (dir.empty()) {
      UprobeEventGroup::remove_stale_groups_if_mounted(said);
    } else {
      UprobeEventGroup::remove_stale_groups(dir, said);
    }
    // One write: the main thread may print meanwhile.
    if (!said.str().empty()) std::cerr << said.str() << std::flush;
  });
}

}  // namespace usdt::record
