// What a recording will attach, decided before anything is attached: each
// probe site's sample plan (record/site_sampling.h) and which path its
// events take (README "How recording works"):
//   -- and -p: every site a tracefs uprobe event, opened per traced task;
//   tracepoints: the kernel's own (tracefs events/), per traced task with --
//              and -p, per CPU with -a;
//   -a:        the uprobe PMU system-wide, tracefs events for the sites
//              that read memory in the kernel;
//   no tracefs (a container, lockdown): the uprobe PMU system-wide for all,
//              and no kernel reads (one warning says what that costs).
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <vector>

#include "common/result.h"
#include "record/attach/tracefs.h"
#include "record/attach/uprobe_event_group.h"
#include "record/planned_site.h"
#include "record/record_options.h"
#include "record/sample_decoder.h"

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
// when needed.
Result<RecordingPlan> plan_recording(const RecordOptions& options,
                                     const std::vector<ResolvedSite>& resolved, std::ostream& err,
                                     std::optional<TracefsMount> tracefs = std::nullopt);

// Defines, in a group of this recorder's own, the tracefs events of the
// sites that take one, after removing the groups of killed recorders; points
// those sites' perf events (attach) and decoding at them. The group deletes
// its events when it goes away: after the perf events are closed.
Result<UprobeEventGroup> define_tracefs_events(const RecordingPlan& plan,
                                               std::vector<SiteAttach>& attach,
                                               SampleDecoder& decoder, std::ostream& err);

}  // namespace usdt::record
