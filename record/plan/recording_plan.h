// What a recording will attach, decided before anything is attached: each
// probe site's sample plan (record/plan/site_sampling.h) and which path its
// events take (docs/internals.md, "How recording works"):
//   -- and -p: every site a tracefs uprobe event, opened per traced task;
//   tracepoints: the kernel's own (tracefs events/), per traced task with --
//              and -p, per CPU with -a;
//   -a:        the uprobe PMU system-wide, tracefs events for the sites
//              that read memory in the kernel;
//   no tracefs (a container, lockdown): the uprobe PMU system-wide for all,
//              and no kernel reads (one warning says what that costs);
//   --capture bpf: the same events, each uprobe site with the BPF capture
//              program attached (one uprobe-PMU event per site, not per
//              CPU); its arguments are read by the program, so no site
//              needs a kernel read.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <vector>

#include "common/result.h"
#include "record/attach/tracefs.h"
#include "record/attach/uprobe_event_group.h"
#include "record/plan/planned_site.h"
#include "record/record_options.h"
#include "record/kernel/sample_decoder.h"

namespace usdt::record {

struct RecordingPlan {
  std::vector<PlannedSite> sites;
  std::optional<TracefsMount> tracefs;  // mounted (or found) when some site needs it
  bool per_task = false;                // per-task tracefs events for every site
  size_t file_count = 0;                // distinct probed files
};

// Checks that every --string pattern matches a site, plans each site's
// sample, and opens tracefs when a site needs it (warning on err, and
// planning again without kernel reads, when it cannot be had). tracefs:
// already opened (tracepoints need it to be resolved), else opened here
// when needed. follow: the recording follows new mappings, so a --string
// pattern that matches no probe yet is no error. bpf: the uprobe sites are
// captured by the BPF program (record/plan/bpf_arg_plan.h), tracepoints
// still sampled.
Result<RecordingPlan> plan_recording(const RecordOptions& options,
                                     const std::vector<ResolvedSite>& resolved, std::ostream& err,
                                     std::optional<TracefsMount> tracefs = std::nullopt,
                                     bool follow = false, bool bpf = false);

// Defines, in a group of this recorder's own, the tracefs events of the
// sites that take one; points those sites' perf events (attach) and decoding at them. The group
// deletes its events when it goes away: after the perf events are closed. gone (-a, whose sites
// were found in files that running processes map): when given, a site whose file no longer exists
// (site_file_gone) is left undefined and marked there, for the caller to leave out, instead of
// failing the whole recording.
Result<UprobeEventGroup> define_tracefs_events(const RecordingPlan& plan,
                                               std::vector<SiteAttach>& attach,
                                               SampleDecoder& decoder,
                                               std::vector<bool>* gone = nullptr);

// Whether the file a site was found in is gone: the process it was reached
// through (/proc/PID/root) exited, or the file was deleted after its last
// user unmapped it. Asked after the kernel refused the site, to tell that
// from any other failure.
bool site_file_gone(const ResolvedSite& site);

// Sites found during the recording in a library mapped after the start
// (record/resolve/mapping_follower.h): planned like -a's, since the session opens
// them system-wide; kernel_reads when tracefs is there.
Result<std::vector<PlannedSite>> plan_added_sites(const RecordOptions& options,
                                                  const std::vector<ResolvedSite>& resolved,
                                                  bool kernel_reads, bool bpf = false);

// Defines the tracefs event of an added site that reads memory in the kernel
// and points attach at it; returns its raw layout (empty for a site that
// needs no tracefs event: it goes through the uprobe PMU).
Result<std::vector<RawArg>> define_added_site(const PlannedSite& site, uint32_t id,
                                              UprobeEventGroup& group, SiteAttach& attach);

}  // namespace usdt::record
