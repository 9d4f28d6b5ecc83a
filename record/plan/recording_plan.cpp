#include "record/plan/recording_plan.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>

#include "common/probe_spec.h"
#include "record/diagnostics.h"
#include "record/plan/bpf_arg_plan.h"
#include "record/stacks/fp_caller.h"

namespace usdt::record {
namespace {

// Whether a --string pattern selects a site (function probes by their
// recorded names, common/probe_spec.h).
bool selects(const ProbeSpec& spec, const ResolvedSite& r) {
  return spec.matches(r.path, r.provider, r.name);
}

// The bit of the argument of r called name, 0 when r has none of that name.
uint32_t name_bit(const ResolvedSite& r, const std::string& name) {
  for (size_t i = 0; i < r.arg_names.size() && i < 32; ++i) {
    if (r.arg_names[i] == name) return 1u << i;
  }
  return 0;
}

// "the arguments there: n, m" or "the matching probes have no named arguments".
std::string names_of(const std::vector<ResolvedSite>& resolved, const ProbeSpec& spec) {
  std::set<std::string> names;
  for (const ResolvedSite& r : resolved) {
    if (!selects(spec, r)) continue;
    names.insert(r.arg_names.begin(), r.arg_names.end());
  }
  if (names.empty()) return "the matching probes have no named arguments";
  std::string out = "the names there:";
  for (const std::string& n : names) out += " " + n;
  return out;
}

// The arguments of site r that --string asks for, as a mask.
Result<uint32_t> string_mask_for(const RecordOptions& options, const ResolvedSite& r) {
  uint32_t mask = 0;
  for (const StringArgs& strings : options.strings) {
    if (!selects(strings.probe, r)) continue;
    mask |= strings.arg_mask;
    for (const std::string& name : strings.arg_names) mask |= name_bit(r, name);
  }
  if (r.args.size() < 32) mask &= (1u << r.args.size()) - 1;
  return mask;
}

// follow: a library loaded later may still have the probe a pattern names.
Status check_string_patterns(const RecordOptions& options,
                             const std::vector<ResolvedSite>& resolved, bool follow) {
  for (const StringArgs& strings : options.strings) {
    const ProbeSpec* spec = &strings.probe;
    // Tracepoint fields are decoded from their format: --string has nothing to add.
    bool matched = std::any_of(resolved.begin(), resolved.end(), [&](const ResolvedSite& r) {
      return r.kind != format::ProbeKind::tracepoint && selects(*spec, r);
    });
    bool tracepoint = std::any_of(resolved.begin(), resolved.end(), [&](const ResolvedSite& r) {
      return r.kind == format::ProbeKind::tracepoint && spec->matches(r.path, r.provider, r.name);
    });
    if (!matched && tracepoint) {
      return Error("--string " + strings.probe.text +
                   " matches only tracepoints, whose string fields are recorded as strings "
                   "already");
    }
    if (!matched && follow && spec->kind == ProbeKind::usdt) continue;
    if (!matched) {
      return Error("--string " + strings.probe.text + " matches none of the recorded probes");
    }
    for (const std::string& name : strings.arg_names) {
      bool named = std::any_of(resolved.begin(), resolved.end(), [&](const ResolvedSite& r) {
        return selects(*spec, r) && name_bit(r, name) != 0;
      });
      if (!named) {
        return Error("--string " + strings.probe.text + "=" + name +
                     ": no probe it matches has an "
                     "argument named '" +
                     name + "' (names come from DWARF; " + names_of(resolved, *spec) + ")");
      }
      // DWARF says what the parameter is: a number is no address to read.
      for (const ResolvedSite& r : resolved) {
        uint32_t bit = selects(*spec, r) ? name_bit(r, name) : 0;
        if (bit == 0) continue;
        size_t i = static_cast<size_t>(__builtin_ctz(bit));
        if (i < r.arg_pointers.size() && !r.arg_pointers[i]) {
          return Error("--string " + strings.probe.text + "=" + name + ": '" + name + "' of " +
                       r.name + " is " +
                       (i < r.arg_types.size() ? "'" + r.arg_types[i] + "'" : "no pointer") +
                       ", not a pointer to a string");
        }
      }
    }
  }
  return Status::success();
}

// A site the BPF path can capture: a uprobe of any kind on x86-64
// (bpf_arg_plan.h); tracepoints keep their perf samples.
bool bpf_captures(const ResolvedSite& r) {
  return r.kind != format::ProbeKind::tracepoint && r.arch == Arch::x86_64;
}

Result<std::vector<PlannedSite>> plan_sites(const RecordOptions& options,
                                            const std::vector<ResolvedSite>& resolved,
                                            bool kernel_reads, bool bpf) {
  std::vector<PlannedSite> sites;
  CallerRepairPlanner callers;
  for (const ResolvedSite& r : resolved) {
    if (r.kind == format::ProbeKind::tracepoint) {
      // Every field is in the raw record the kernel writes.
      PlannedSite p;
      p.resolved = r;
      p.sampling.sources.assign(r.args.size(), ArgSource::kernel_read);
      p.sampling.missing_reasons.assign(r.args.size(), "");
      p.sampling.fetch_args.assign(r.args.size(), "");
      sites.push_back(std::move(p));
      continue;
    }
    Result<uint32_t> strings = string_mask_for(options, r);
    if (!strings) return strings.error();
    SamplingChoices choices;
    choices.stack_bytes = options.stack_bytes;
    choices.kernel_reads = kernel_reads;
    choices.string_mask = *strings;
    choices.file_base = r.file_base;
    PlannedSite p;
    if (bpf && bpf_captures(r)) {
      BpfSitePlan b = plan_bpf_site(r.args, r.arch, choices, r.file_base + r.file_offset,
                                    r.kind == format::ProbeKind::uretprobe);
      p.sampling = std::move(b.sampling);
      p.bpf = true;
      p.bpf_site = b.site;
    } else {
      p.sampling = plan_site_sampling(r.args, r.arch, choices);
    }
    p.resolved = r;
    if (options.call_graph.mode == CallGraphMode::fp) {
      p.caller_repair = callers.plan(r);
      // The bytes from %rsp that the mending reads, copied by the program.
      p.bpf_site.stack_window = static_cast<uint16_t>(
          std::min<uint32_t>(caller_repair_stack_bytes(p.caller_repair), USDT_BPF_FP_WINDOW_MAX));
    }
    sites.push_back(std::move(p));
  }
  return sites;
}

}  // namespace

Result<RecordingPlan> plan_recording(const RecordOptions& options,
                                     const std::vector<ResolvedSite>& resolved, std::ostream& err,
                                     std::optional<TracefsMount> tracefs, bool follow, bool bpf) {
  if (Status s = check_string_patterns(options, resolved, follow); !s) return s.error();
  RecordingPlan plan;
  plan.tracefs = std::move(tracefs);
  plan.per_task = !options.all;
  Result<std::vector<PlannedSite>> sites = plan_sites(options, resolved, true, bpf);
  if (!sites) return sites.error();
  plan.sites = std::move(*sites);
  bool kernel_reads = std::any_of(plan.sites.begin(), plan.sites.end(), [](const PlannedSite& p) {
    return p.sampling.needs_kernel_reads();
  });
  if ((plan.per_task || kernel_reads) && !plan.tracefs) {
    Result<TracefsMount> tracefs = TracefsMount::open();
    if (tracefs) {
      plan.tracefs.emplace(std::move(*tracefs));
    } else {
      // Registers and the stack still work through the uprobe PMU.
      if (!options.quiet) {
        warning(err) << tracefs.error().message()
                     << ": no kernel reads (memory and string arguments are recorded as missing"
                     << (plan.per_task ? "; other processes running the probed files take the "
                                         "breakpoint too"
                                       : "")
                     << ")\n";
      }
      plan.per_task = false;
      sites = plan_sites(options, resolved, false, bpf);
      if (!sites) return sites.error();
      plan.sites = std::move(*sites);
    }
  }
  std::set<std::string> files;
  for (const PlannedSite& p : plan.sites) {
    if (p.resolved.kind != format::ProbeKind::tracepoint) files.insert(p.resolved.open_path);
  }
  plan.file_count = files.size();
  return plan;
}

namespace {

// Defines the tracefs event of one site in group; points attach at it and
// returns where its kernel-read arguments lie in the raw records.
Result<std::vector<RawArg>> define_site_event(const PlannedSite& site, uint32_t id,
                                              UprobeEventGroup& group, SiteAttach& attach) {
  std::string name = "s";  // the detacher reads the site id back from the name
  name += std::to_string(id);
  Result<TracefsEvent> event = group.add(name, site.resolved.kind == format::ProbeKind::uretprobe,
                                         tracefs_probe_location(site), tracefs_fetch_args(site));
  const std::string what = site.resolved.provider + ":" + site.resolved.name;
  if (!event) return event.error().context("cannot define " + what);
  Result<std::vector<RawArg>> layout = raw_layout(site, *event);
  if (!layout) return layout.error().context("the tracefs event of " + what);
  attach.config.tracepoint_id = event->id;
  attach.config.raw = site.sampling.needs_kernel_reads();
  return layout;
}

}  // namespace

Result<UprobeEventGroup> define_tracefs_events(const RecordingPlan& plan,
                                               std::vector<SiteAttach>& attach,
                                               SampleDecoder& decoder, std::vector<bool>* gone) {
  UprobeEventGroup group = UprobeEventGroup::for_this_process(plan.tracefs->dir());
  if (gone != nullptr) gone->assign(plan.sites.size(), false);
  for (uint32_t id = 0; id < plan.sites.size(); ++id) {
    const PlannedSite& site = plan.sites[id];
    // The kernel's own tracepoints need no definition.
    if (site.resolved.kind == format::ProbeKind::tracepoint) continue;
    if (!plan.per_task && !site.sampling.needs_kernel_reads()) continue;
    Result<std::vector<RawArg>> layout = define_site_event(site, id, group, attach[id]);
    if (!layout && gone != nullptr && site_file_gone(site.resolved)) {
      (*gone)[id] = true;
      continue;
    }
    if (!layout) return layout.error();
    decoder.set_raw_layout(id, std::move(*layout));
  }
  return group;
}

bool site_file_gone(const ResolvedSite& site) {
  struct stat st;
  return ::stat(site.open_path.c_str(), &st) != 0 && (errno == ENOENT || errno == ESRCH);
}

Result<std::vector<PlannedSite>> plan_added_sites(const RecordOptions& options,
                                                  const std::vector<ResolvedSite>& resolved,
                                                  bool kernel_reads, bool bpf) {
  return plan_sites(options, resolved, kernel_reads, bpf);
}

Result<std::vector<RawArg>> define_added_site(const PlannedSite& site, uint32_t id,
                                              UprobeEventGroup& group, SiteAttach& attach) {
  if (!site.sampling.needs_kernel_reads()) return std::vector<RawArg>();
  return define_site_event(site, id, group, attach);
}

}  // namespace usdt::record
