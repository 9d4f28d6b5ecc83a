// The session's set-up (record_session.h): kernel features, the probe specs
// resolved to sites, the plan of each site's sample, and the trace file,
// created before anything is attached.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "common/probe_spec.h"
#include "record/diagnostics.h"
#include "record/output/make_sink.h"
#include "record/output/trigger_watch.h"
#include "record/plan/planned_site.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/target_processes.h"
#include "record/resolve/task_list.h"
#include "record/resolve/tracepoint_sites.h"
#include "record/session/record_session.h"
#include "record/session/recording_metadata.h"

namespace usdt::record {
namespace {

// A uretprobe replaces the function's return address with the kernel's
// trampoline, which has no unwind information: a C++ exception thrown
// through such a function cannot be unwound and the program terminates
// (std::terminate, with libgcc's unwinder on Linux 6.18). Said
// once, for C++ functions (their names are demangled, so they hold "(").
void warn_cxx_uretprobes(const std::vector<ResolvedSite>& sites, std::ostream& err) {
  for (const ResolvedSite& s : sites) {
    if (s.kind != format::ProbeKind::uretprobe || s.name.find('(') == std::string::npos) continue;
    warning(err) << "uretprobe:" << s.name
        << " is a C++ function: an exception thrown through a function with a uretprobe "
           "terminates the program (the unwinder cannot pass the kernel's return trampoline)\n";
    return;
  }
}

// Many probes x threads x CPUs need many fds: use the whole hard limit.
void raise_fd_limit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Whether path is the file the recorder's stdout is (-o /dev/stdout, -o
// /proc/self/fd/1, or the file stdout was redirected to).
bool is_our_stdout(const std::string& path) {
  struct stat file {
  }, out{};
  return ::stat(path.c_str(), &file) == 0 && fstat(STDOUT_FILENO, &out) == 0 &&
         file.st_dev == out.st_dev && file.st_ino == out.st_ino;
}

}  // namespace

TestFault test_fault_from_environment() {
  const char* fault = std::getenv("USDT_RECORD_TEST_FAULT");
  if (fault == nullptr) return TestFault::none;
  const std::string name = fault;
  if (name == "writer") return TestFault::writer;
  if (name == "watchdog") return TestFault::watchdog;
  if (name == "drain") return TestFault::drain;
  if (name == "context_swap") return TestFault::context_swap;
  if (name == "snapshot_stall") return TestFault::snapshot_stall;
  return TestFault::none;
}

Status RecordSession::prepare() {
  Result<KernelFeatures> features = probe_kernel_features();
  if (!features) return features.error();
  features_ = std::move(*features);
  raise_fd_limit();
  features_.inherit_sample_read = fault_ != TestFault::context_swap && probe_inherit_sample_read();
  if (options_.call_graph.enabled()) {
    Result<std::unique_ptr<StackCollector>> stacks = StackCollector::create(options_.call_graph);
    if (!stacks) return stacks.error();
    stacks_ = std::move(*stacks);
    features_.mmap_build_id = probe_mmap_build_id();
  }
  std::vector<ProbeSpec> tracepoint_specs, probe_specs;
  split_tracepoint_specs(options_.probes, tracepoint_specs, probe_specs);
  Result<std::vector<ResolvedSite>> resolved = resolve_sites(probe_specs);
  if (!resolved) return resolved.error();
  std::optional<TracefsMount> tracefs;
  if (Status s = add_tracepoints(tracepoint_specs, *resolved, tracefs); !s) return s;
  return plan_and_create_file(std::move(*resolved), std::move(tracefs));
}

Result<std::vector<ResolvedSite>> RecordSession::resolve_sites(const std::vector<ProbeSpec>& probe_specs) {
  SearchScope scope;
  if (!options_.command.empty()) {
    scope.command_binary = find_in_path(options_.command[0]);
    if (scope.command_binary.empty()) {
      return Error("cannot run '" + options_.command[0] + "': command not found");
    }
  }
  scope.pids = options_.pids;
  if (options_.live_fleet.mount_ns_of) scope.mount_ns_of = *options_.live_fleet.mount_ns_of;
  for (pid_t pid : options_.pids) {
    if (!process_alive(pid)) return Error("no process with PID " + std::to_string(pid));
  }
  // PROVIDER:NAME specs are also looked for in every file the traced
  // processes map later (dlopen()).
  std::vector<ProbeSpec> follow_specs;
  for (const ProbeSpec& spec : probe_specs) {
    if (spec.kind == ProbeKind::usdt && spec.path.empty()) follow_specs.push_back(spec);
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
    if (!options_.quiet) warning(std::cerr) << w << '\n';
  }
  // A spec that matches nothing is most often misspelt: an error naming the
  // closest probes, unless the user expects a library loaded later.
  if (!notes.waiting.empty() && !options_.allow_missing) return Error(notes.waiting.front().second);
  if (scope.follow) {
    std::vector<std::string> waiting;
    for (const auto& [spec, why] : notes.waiting) {
      waiting.push_back(spec);
      if (options_.quiet) continue;
      // The error's dlopen() hint does not apply: this is what is done about it.
      std::string first = why.substr(0, why.find("\nhint:"));
      warning(std::cerr) << first
                << "; waiting for a library loaded later that has it\n";
    }
    follower_ = std::make_unique<MappingFollower>(std::move(follow_specs), waiting);
    for (const std::string& path : notes.searched) follower_->mark_searched(path);
  }
  if (!options_.pids.empty() && !resolved->empty()) {
    std::vector<std::string> warnings;
    if (Status s = check_pids_map_sites(options_.pids, *resolved, warnings); !s) return s.error();
    for (const std::string& w : warnings) {
      if (!options_.quiet) warning(std::cerr) << w << '\n';
    }
  }
  if (!options_.quiet) warn_cxx_uretprobes(*resolved, std::cerr);
  return resolved;
}

Status RecordSession::add_tracepoints(const std::vector<ProbeSpec>& specs,
                                      std::vector<ResolvedSite>& resolved,
                                      std::optional<TracefsMount>& tracefs) {
  if (specs.empty()) return Status::success();
  Result<TracefsMount> mount = TracefsMount::open();
  if (!mount) return tracefs_unavailable(mount.error());
  tracefs.emplace(std::move(*mount));
  Result<std::vector<ResolvedSite>> tracepoints = resolve_tracepoints(tracefs->dir(), specs);
  if (!tracepoints) return tracepoints.error();
  if (!options_.quiet) warn_fields_left_out(*tracepoints, std::cerr);
  resolved.insert(resolved.end(), tracepoints->begin(), tracepoints->end());
  return Status::success();
}

Status RecordSession::plan_and_create_file(std::vector<ResolvedSite> resolved,
                                           std::optional<TracefsMount> tracefs) {
  Result<bool> bpf = choose_capture(resolved);
  if (!bpf) return bpf.error();
  capture_bpf_ = *bpf;
  Result<RecordingPlan> plan = plan_recording(options_, resolved, std::cerr, std::move(tracefs),
                                              follower_ != nullptr, capture_bpf_);
  if (!plan) return plan.error();
  plan_ = std::move(*plan);
  if (capture_bpf_) {
    if (Status s = load_capture(); !s) return s;
  }
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
  std::function<void()> hold;
  if (fault_ == TestFault::snapshot_stall) {
    // The first snapshot completes; the second stops once its file has begun.
    hold = [snapshots = std::make_shared<std::atomic<int>>(0)] {
      if (snapshots->fetch_add(1) == 0) return;
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    };
  }
  writer_options.flush_interval_ms = options_.live_fleet.flush_interval_ms;
  const format::TraceMetadata metadata = make_metadata(features_.cpus, options_.live_fleet.hostname);
  file_start_ns_ = metadata.start_monotonic_ns;
  Result<std::unique_ptr<TraceSink>> sink = make_sink(options_.output_policy, options_.output,
                                                      metadata, probe_sites_, writer_options,
                                                      std::move(hold));
  if (!sink) return sink.error();
  sink_ = std::move(*sink);
  output_ = sink_.get();
  for (const TriggerSpec& trigger : options_.output_policy.triggers) {
    const std::string probe = unmatched_probe(trigger, probe_sites_);
    if (probe.empty() || options_.quiet) continue;
    warning(std::cerr) << "--snapshot-on '" << trigger.text << "': " << probe
                       << " matches no probe site of the recording"
                       << (follower_ ? " yet (a library loaded later may have it)" : "") << '\n';
  }
  created_path_ = sink_->created_path();
  output_is_stdout_ = is_our_stdout(options_.output);
  return Status::success();
}

}  // namespace usdt::record
