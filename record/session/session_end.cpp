// The session's ways out (record_session.h). Every recording that got as
// far as its writer thread ends in finish(), whatever ended it: the command
// exited, every -p process is gone, --duration, a stop signal
// (stop_signals.h), a write error or an internal error. finish() stops the
// events, drains what is left, writes the summary (unless the file is what
// failed), prints the end report (also after a failure: how many events
// were recorded, lost and written must still be said), ends what still
// runs of the command, and leaves the tracefs events to the detacher.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "record/attach/attach_turns.h"
#include "record/attach/background_detach.h"
#include "record/attach/tracefs.h"
#include "record/diagnostics.h"
#include "record/resolve/task_list.h"
#include "record/session/end_report.h"
#include "record/session/record_session.h"
#include "record/session/recording_metadata.h"
#include "record/stacks/object_table.h"

namespace usdt::record {
namespace {

// How long a command that still runs at the end has after SIGTERM.
constexpr std::chrono::milliseconds kCommandGrace{2000};

}  // namespace

void RecordSession::stop_events() {
  if (!events_) {
    end_ns_ = clock_ns(CLOCK_MONOTONIC);
    return;
  }
  events_->disable_all();
  if (bpf_) bpf_->arm(false);
  // The recording ends once the last event is off: no event is later.
  end_ns_ = clock_ns(CLOCK_MONOTONIC);
  if (!drainer_) {
    events_->flush_pending_losses();
    return;
  }
  // Disabled events write nothing more: drain until a pass is empty, so
  // that the records which bring out the pending losses find room, then
  // read them. (Passes the watchdog watches: writer_thread.h.)
  if (writer_thread_) writer_thread_->pass_begins();
  drainer_->drain_until_empty(events_->buffers());
  events_->flush_pending_losses();
  drainer_->drain_to_end(events_->buffers());
  name_unnamed_threads();
}

format::TraceSummary RecordSession::make_summary() const {
  format::TraceSummary summary;
  summary.enabled_monotonic_ns = start_ns_;
  summary.armed_monotonic_ns = armed_ns_;
  summary.attach_wait_ns = attach_wait_ns_;
  summary.end_monotonic_ns = end_ns_;
  summary.events = drainer_->events();
  summary.lost = drainer_->lost();
  summary.events_per_site = drainer_->events_per_site();
  summary.lost_per_site = drainer_->lost_per_site();
  summary.dropped = dropped_by_cause();
  return summary;
}

int RecordSession::finish(const std::optional<Error>& failure) {
  if (failure) print_error(std::cerr, *failure);
  if (stale_cleanup_.joinable()) stale_cleanup_.join();  // its lines before the report
  stop_events();
  if (!writer_thread_ || !drainer_) {
    end_command();
    return 1;
  }
  // As the start's (session_attach.cpp): the trace still open, the events too.
  if (std::getenv("USDT_RECORD_TEST_TABLES") != nullptr) print_table_sizes("at the end");
  const format::TraceSummary summary = make_summary();
  Status written = writer_thread_->finish(summary, stack_objects());
  if (!written) print_error(std::cerr, written.error().context("recording stopped"));
  // A watchdog failure completes the file first (writer_thread.h).
  const bool file_incomplete = !writer_thread_->trace_finished();
  if (!options_.quiet) {
    warn_stack_misses();
    warn_never_matched();
    warn_forked_children();
    print_end_report(summary, file_incomplete);
  }
  if (file_incomplete && options_.output_policy.single_file()) {
    std::cerr << "usdt-record: what was written before the error stays readable in "
              << options_.output << '\n';
  }
  const int command_status = end_command();
  if (failure || !written) return 1;
  return command_status;
}

void RecordSession::print_end_report(const format::TraceSummary& summary, bool write_failed) const {
  EndReport report;
  const OutputReport output = writer_thread_->output_report();
  report.output = options_.output;
  report.where = output.description;
  report.output_lines = output.lines;
  report.events = summary.events;
  report.lost = summary.lost;
  const uint64_t bpf_lost = bpf_source_ ? bpf_source_->lost() : 0;
  report.lost_by_cause = {
      {"the perf rings were full", summary.lost - std::min(summary.lost, bpf_lost)},
      {"the BPF ring was full", bpf_lost}};
  report.bytes = output.bytes;
  // After a failed write the file may hold part of a block beyond the
  // last whole one: what a regular file holds is its size.
  struct stat st {};
  if (write_failed && options_.output_policy.single_file() &&
      ::stat(options_.output.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    report.bytes = static_cast<uint64_t>(st.st_size);
  }
  report.write_failed = write_failed;
  report.events_in_file = output.events_in_files;
  report.seconds = static_cast<double>(end_ns_ - start_ns_) / 1e9;
  report.start_ns = start_ns_;
  report.end_ns = end_ns_;
  report.sites = probe_sites_;
  report.events_per_site = summary.events_per_site;
  report.lost_per_site = summary.lost_per_site;
  report.dropped = summary.dropped;
  report.file_start_ns = file_start_ns_;
  report.armed_ns = armed_ns_;
  report.attach_wait_ns = attach_wait_ns_;
  report.command = !options_.command.empty();
  report.call_stacks = stacks_ != nullptr;
  report.stacks = drainer_->stacks();
  report.truncated_stacks = drainer_->truncated_stacks();
  usdt::record::print_end_report(report, std::cerr);
}

// For the tests of long recordings (USDT_RECORD_TEST_TABLES): what the
// tables that process churn could grow hold, and the descriptors open.
void RecordSession::print_table_sizes(const char* when) const {
  const Drainer::TableSizes t = drainer_->table_sizes();
  size_t fds = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  std::cerr << "usdt-record: tables " << when << ": seen_threads " << t.seen_threads
            << " named_threads " << t.named_threads << " traced_processes " << t.traced_processes
            << " counted_processes " << t.counted_processes << " namespaces_at_fork "
            << t.namespaces_at_fork << " fds " << (fds > 0 ? fds - 1 : 0)
            << " namespace_records " << drainer_->namespace_records() << '\n';
}

void RecordSession::warn_never_matched() const {
  if (!follower_) return;
  for (const std::string& spec : follower_->never_matched()) {
    warning(std::cerr) << "probe '" << spec << "' matched nothing: no file the "
              << (options_.all ? "processes" : "traced processes") << " mapped has it ("
              << follower_->files_examined() << " files mapped during the recording examined)\n";
  }
}

void RecordSession::warn_forked_children() const {
  const bool per_task_sites = plan_.per_task && !options_.all;
  if (!per_task_sites || features_.inherit_sample_read || drainer_->forked_processes() == 0) return;
  std::cerr << "usdt-record: warning: " << drainer_->forked_processes()
            << " traced processes started during the recording, and on this kernel (before "
               "Linux 6.12) a child's probes can stop firing when a sibling exits: such hits "
               "are neither recorded nor counted as lost\n"
               "hint: -a with usdt:PATH:PROVIDER:NAME probes inherits nothing; usdt-report --pid "
               "selects a process\n";
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
      if (said.insert(line).second) warning(std::cerr) << line << '\n';
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
  uint64_t malformed = decoder_->malformed();
  if (bpf_source_) {
    malformed += bpf_source_->malformed();
    corrupt += bpf_source_->corrupt_skips();
  }
  return {{"malformed", malformed},
          {"unknown_event_id", decoder_->unknown_ids()},
          {"corrupt_ring_tail", corrupt},
          {"foreign_process", drainer_->foreign()},
          {format::kLostProcessRecords, drainer_->lost_process_records()}};
}

std::vector<format::ObjectTable> RecordSession::stack_objects() const {
  std::vector<format::ObjectTable> tables;
  if (!stacks_) return tables;
  for (const StackObject& object : stacks_->objects()) {
    Result<format::ObjectTable> table = build_object_table(object);
    if (!table) {
      if (!options_.quiet) {
        warning(std::cerr) << "no symbols for the frames in " << object.path << ": "
                  << table.error().message() << '\n';
      }
      continue;
    }
    tables.push_back(std::move(*table));
  }
  return tables;
}

int RecordSession::end_command() {
  const pid_t detacher = release_events();
  if (!child_) return 0;
  int status;
  if (!child_status_ && child_->try_wait(status)) child_status_ = status;
  if (child_status_) return *child_status_;
  // Stopped by --duration, a signal or an error while the command still
  // runs: end it and everything it started, firmly if they do not listen.
  child_->end(kCommandGrace, detacher);
  return 0;
}

pid_t RecordSession::release_events() {
  // The capture program's links first: they hold the events they run on.
  if (drainer_) drainer_->set_event_source(nullptr);
  bpf_source_.reset();
  bpf_.reset();
  capture_hosts_.clear();
  if (!events_) return -1;
  // Closing the last reference of a uprobe's perf event takes the kernel a
  // grace period per probe (background_detach.h): a child does it after we
  // exit, and deletes our tracefs events and mount then.
  // Each site's tracefs event is deleted as soon as its perf events are
  // closed, so that another recorder starting meanwhile finds none of ours
  // to take for a dead recorder's.
  const EventSet* events = &*events_;
  UprobeEventGroup* group = group_ ? &*group_ : nullptr;
  TracefsMount* tracefs = plan_.tracefs ? &*plan_.tracefs : nullptr;
  // Each close, and each deletion, in a turn of its own (attach_turns.h): a
  // recording that starts meanwhile waits for one close, not for all.
  std::vector<int> release_fds = events->site_fds();
  if (group != nullptr) release_fds.push_back(group->lock_fd());
  release_fds.push_back(attach_lock_fd());
  release_fds.push_back(attach_intent_fd());
  const pid_t detacher = detach_after_exit(
      [events, group] {
        if (group != nullptr) {
          std::vector<std::string> names = group->names();  // "s<site id>"
          for (const std::string& name : names) {
            events->close_site_fds(
                static_cast<uint32_t>(std::strtoul(name.c_str() + 1, nullptr, 10)),
                [](int fd) { in_detach_turn([fd] { close(fd); }); });
            in_detach_turn([&] { group->delete_one(name); });
          }
          in_detach_turn([&] { group->delete_all(); });  // forgets the deleted, retries the rest
        }
        // The rest (uprobe-PMU events, tracking events), one by one; those
        // closed above fail with EBADF: nothing opens a descriptor meanwhile.
        for (int fd : events->site_fds()) in_detach_turn([fd] { close(fd); });
      },
      [tracefs] {
        if (tracefs != nullptr) tracefs->unmount_if_ours();
      },
      std::move(release_fds), plan_.tracefs ? TracefsMount::use_lock_fd() : -1);
  if (detacher > 0) {
    if (group_) group_->release();
    if (plan_.tracefs) plan_.tracefs->release();
  } else if (!options_.quiet && events_->event_count() >= 20) {
    std::cerr << "usdt-record: detaching " << events_->event_count()
              << " perf events (the kernel takes up to 0.1 s for each probe)" << std::endl;
  }
  events_.reset();
  return detacher;
}

}  // namespace usdt::record
