// The session's drain loop (record_session.h): waits on the ring buffers,
// the stop signals and the --duration timer, drains, follows libraries
// mapped during the recording, and returns when the recording must end.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>

#include "record/attach/attach_turns.h"
#include "record/diagnostics.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/task_list.h"
#include "record/session/record_session.h"
#include "record/session/recording_metadata.h"

namespace usdt::record {
namespace {

// How often -p liveness is checked when no buffer wakes the loop; the loop
// also wakes twice a flush interval at least, so that what a quiet workload
// fired reaches the writer (and the file) within about one.
constexpr int kPollMillis = 200;
// With triggers, how often a quiet recording tells the output how far the
// drain has come (a trigger's --after window completes by it).
constexpr uint64_t kProgressNs = 100 * 1000 * 1000;

// "1.234" seconds, "12.3" milliseconds (0 for a negative span).
std::string format_seconds(uint64_t from_ns, uint64_t to_ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f",
                to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : 0.0);
  return buf;
}
std::string format_millis(uint64_t from_ns, uint64_t to_ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f",
                to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e6 : 0.0);
  return buf;
}

// edge: reported when the descriptor's waiters are woken, not while it is
// readable (the BPF ring is readable whenever anything is unread).
Status watch(int epoll, int fd, bool edge = false) {
  epoll_event ev{};
  ev.events = EPOLLIN | (edge ? EPOLLET : 0u);
  ev.data.fd = fd;
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) != 0) return errno_error("epoll_ctl failed");
  return Status::success();
}

// The --duration timer, armed now.
Result<UniqueFd> duration_timer(double secs) {
  UniqueFd timer(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!timer) return errno_error("cannot create a timer");
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(secs);
  spec.it_value.tv_nsec = static_cast<long>((secs - std::floor(secs)) * 1e9);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  if (timerfd_settime(timer.get(), 0, &spec, nullptr) != 0) {
    return errno_error("cannot set the timer");
  }
  return timer;
}

}  // namespace

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
  for (RingBuffer& b : events_->buffers()) {
    if (Status s = watch(epoll.get(), b.fd()); !s) return s;
  }
  if (bpf_source_) {
    if (Status s = watch(epoll.get(), bpf_source_->fd(), true); !s) return s;
  }
  if (Status s = watch(epoll.get(), signals_->fd()); !s) return s;
  if (control_) {
    if (Status s = watch(epoll.get(), control_->fd()); !s) return s;
  }
  UniqueFd timer;
  if (options_.duration_seconds) {
    Result<UniqueFd> armed = duration_timer(*options_.duration_seconds);
    if (!armed) return armed.error();
    timer = std::move(*armed);
    if (Status s = watch(epoll.get(), timer.get()); !s) return s;
  }

  const int poll_millis =
      std::clamp(static_cast<int>(options_.live_fleet.flush_interval_ms / 2), 5, kPollMillis);
  const bool follow_pids = !options_.pids.empty() && options_.command.empty();
  if (follow_pids) drainer_->keep_new_processes();
  uint64_t next_liveness = 0;
  epoll_event ready[16];
  for (;;) {
    int n = epoll_wait(epoll.get(), ready, 16, poll_millis);
    if (n < 0 && errno != EINTR) return errno_error("epoll_wait failed");
    writer_thread_->pass_begins();  // ended by keep_up() below
    bool stop = false;
    bool output_asked = false;
    bool control_ready = false;
    for (int i = 0; i < n; ++i) {
      if (ready[i].data.fd == signals_->fd()) {
        bool child_exited = false;
        if (signals_->read_pending(child_exited, output_asked)) stop = true;
      } else if (timer && ready[i].data.fd == timer.get()) {
        stop = true;
      } else if (control_ && ready[i].data.fd == control_->fd()) {
        control_ready = true;
      }
    }
    // What was asked is answered with everything recorded before it.
    const uint64_t asked_ns = clock_ns(CLOCK_MONOTONIC);
    if (fault_ == TestFault::drain) throw std::bad_alloc();
    drainer_->drain(events_->buffers());
    if (follower_) follow_new_mappings();
    if (output_asked) ask_output("signal", asked_ns);
    if (control_ready) read_control(asked_ns);
    if (!options_.output_policy.triggers.empty()) drainer_->send_progress(asked_ns, kProgressNs);
    writer_thread_->keep_up();
    if (writer_thread_->failed()) return Status::success();  // reported by finish()
    if (writer_thread_->full()) return Status::success();    // --max-size: reported by finish()
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

void RecordSession::ask_output(const std::string& cause, uint64_t at_ns) {
  OutputRequest request;
  request.kind = options_.output_policy.flight.enabled ? OutputRequest::Kind::snapshot
                                                       : OutputRequest::Kind::switch_file;
  request.cause = cause;
  request.at_ns = at_ns;
  drainer_->request(std::move(request));
}

void RecordSession::read_control(uint64_t asked_ns) {
  for (const std::string& command : control_->read_commands()) {
    if (command == "snapshot") {
      ask_output("control", asked_ns);
      control_->ack();
    } else if (!options_.quiet) {
      warning(std::cerr) << "--control: unknown command '" << command
                         << "' (the command is snapshot)\n";
    }
  }
}

void RecordSession::follow_new_mappings() {
  // Per file: its sites and when a traced process mapped it.
  for (const format::ProcessEvent& mmap : drainer_->take_new_mappings()) {
    std::vector<ResolvedSite> found = follower_->examine(mmap);
    if (found.empty()) continue;
    if (Status s = attach_added_sites(found, mmap.path, mmap.time_ns); !s && !options_.quiet) {
      warning(std::cerr) << s.error().message() << ": not recorded\n";
    }
  }
}

void RecordSession::register_event_ids() {
  for (; ids_registered_ < events_->ids().size(); ++ids_registered_) {
    decoder_->add_event(events_->ids()[ids_registered_].first,
                        events_->ids()[ids_registered_].second);
  }
}

void RecordSession::define_added_sites(std::vector<PlannedSite>& planned, const std::string& path,
                                       std::vector<PlannedSite>& sites,
                                       std::vector<SiteAttach>& attach,
                                       std::vector<SiteDecoding>& decodings) {
  const uint32_t first = static_cast<uint32_t>(plan_.sites.size());
  std::optional<Error> first_failure;
  size_t failures = 0;
  for (PlannedSite& site : planned) {
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
    warning(std::cerr) << first_failure->message() << ": not recorded";
    if (failures > 1) std::cerr << " (nor " << failures - 1 << " more sites of " << path << ")";
    std::cerr << '\n';
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
      plan_added_sites(options_, found, plan_.tracefs.has_value(), capture_bpf_);
  if (!planned) return planned.error().context(path);
  if (!options_.quiet) {
    // What the start says of the sites it found, said of these too.
    warn_missing_args(*planned, std::cerr);
    warn_relro_semaphores(*planned, std::cerr);
  }
  std::vector<PlannedSite> sites;
  std::vector<SiteAttach> attach;
  std::vector<SiteDecoding> decodings;
  AttachTurn turn = AttachTurn::take();  // as the start's attach (attach_turns.h)
  define_added_sites(*planned, path, sites, attach, decodings);
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
  register_event_ids();
  drainer_->add_sites(sites.size());
  if (bpf_) {
    if (Status s = add_capture_sites(first); !s) return s.error().context(path);
    if (Status s = attach_capture_hosts(); !s) return s.error().context(path);
  }
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

}  // namespace usdt::record
