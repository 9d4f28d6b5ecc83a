// A resolved probe site together with its sample plan, and what the
// session derives from it: the trace's ProbeSite, the perf event to open,
// the decoder's view; plus the warnings said once at start about what can
// never be recorded (arguments a sample cannot hold, semaphores the kernel
// cannot raise).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "formats/trace_types.h"
#include "record/attach/uprobe_event_group.h"
#include "record/kernel/bpf/capture_abi.h"
#include "record/kernel/event_set.h"
#include "record/kernel/sample_decoder.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/probe_resolver.h"

namespace usdt::record {

struct PlannedSite {
  ResolvedSite resolved;
  SiteSampling sampling;
  // -g fp: how the site's stacks name a caller the kernel's walk misses
  // (record/stacks/fp_caller.h); unused otherwise.
  CallerRepair caller_repair;
  // Captured by the BPF program (record/plan/bpf_arg_plan.h): sampling then
  // holds no registers, stack or fetch-args, and bpf_site is the plan the
  // program reads the arguments by.
  bool bpf = false;
  usdt_bpf_site bpf_site{};
};

format::ProbeSite to_probe_site(const PlannedSite& site, uint32_t id);
SiteAttach to_site_attach(const PlannedSite& site, uint32_t id);
SiteDecoding to_site_decoding(const PlannedSite& site, uint32_t id);

// Where the site's kernel-read arguments lie in the raw records of its
// tracefs event; fails when the format lacks a field the plan asked for.
Result<std::vector<RawArg>> raw_layout(const PlannedSite& site, const TracefsEvent& event);

// The probe location as uprobe_events wants it: "PATH:0xOFFSET[(0xSEMAPHORE)]".
std::string tracefs_probe_location(const PlannedSite& site);
// All fetch-args of the site, space-separated.
std::string tracefs_fetch_args(const PlannedSite& site);

// "usdt-record: warning: P:N arg I (SPEC) REASON: recorded as missing", once
// per probe and argument.
void warn_missing_args(const std::vector<PlannedSite>& sites, std::ostream& err);

// "usdt-record: warning: P:N (PATH): no parameters from DWARF, WHY: recording
// the ABI argument registers ...", with a hint, once per probe whose
// arguments are the ABI registers for want of usable debug information.
void warn_function_arg_fallbacks(const std::vector<PlannedSite>& sites, std::ostream& err);

// Warns (with a hint) once per file whose semaphore page is mapped twice.
void warn_relro_semaphores(const std::vector<PlannedSite>& sites, std::ostream& err);

}  // namespace usdt::record
