// Kernel tracepoints as probe sites (-e tracepoint:SUBSYS:EVENT): one site
// per matching tracepoint, named SUBSYS:EVENT, whose arguments are the
// event's fields (formats/FORMAT.md section 3.4.1). The kernel writes them
// into the sample's raw data (PERF_SAMPLE_RAW) as its format file lays
// them out; the decoder reads them back by offset (RawArg).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/trace_types.h"
#include "record/attach/tracepoint_catalog.h"
#include "record/resolve/probe_resolver.h"
#include "record/kernel/sample_decoder.h"

namespace usdt::record {

// Splits -e specs into tracepoint specs and the others (kept in order).
void split_tracepoint_specs(const std::vector<ProbeSpec>& specs, std::vector<ProbeSpec>& tracepoints,
                            std::vector<ProbeSpec>& others);

// Why tracepoints cannot be had without tracefs: the error of
// TracefsMount::open() with context, and a hint for a permission error.
Error tracefs_unavailable(const Error& error);

// One site per tracepoint (the first occurrence when specs overlap).
// Fails on a spec that matches nothing (tracepoint_catalog.h).
Result<std::vector<ResolvedSite>> resolve_tracepoints(const std::string& tracefs_dir,
                                                      const std::vector<ProbeSpec>& specs);

// The site of one tracepoint: its recorded fields (the first kMaxArgs that
// are not common_*), each an ArgSpec whose text is the field's format line.
ResolvedSite tracepoint_site(const Tracepoint& tracepoint);

// Where each recorded field lies in the raw data, in argument order.
std::vector<RawArg> tracepoint_raw_layout(const ResolvedSite& site);

// The trace's descriptor of field i of a tracepoint site.
format::ArgDescriptor tracepoint_arg_descriptor(const ResolvedSite& site, size_t i);

// usdt-record -l 'tracepoint:SUBSYS:EVENT': one `tracepoint:SUBSYS:EVENT`
// line per match; verbose adds each field, how it is recorded, or that it
// is left out. Returns 0, or 1 when a spec matched nothing or tracefs cannot
// be had (said on err).
int list_tracepoints(const std::vector<ProbeSpec>& specs, bool verbose, std::ostream& out, std::ostream& err);

// "usdt-record: warning: SUBSYS:EVENT has N fields, a probe at most 12: left
// out a, b" for each site that lost fields.
void warn_fields_left_out(const std::vector<ResolvedSite>& sites, std::ostream& err);

}  // namespace usdt::record
