// The -p targets, checked before anything is attached (proc(5)):
//   an id may name any thread; perf and /proc/PID/task work per process, so
//   a thread id that is not its process's main thread stands for the whole
//   process (its Tgid), said in a note rather than recording nothing;
//   a kernel thread maps no files and runs no user code: an error at once,
//   rather than a recording that waits forever for events that cannot come;
//   a probed file that a target does not map cannot fire there: a warning
//   per target and file, an error when no target maps it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "record/resolve/probe_resolver.h"

namespace usdt::record {

// The processes the -p ids stand for, in order, without duplicates. Adds one
// note ("TID 1235 is a thread of PID 1234: tracing the process") per thread
// id. Fails for an id with no process or a kernel thread.
Result<std::vector<pid_t>> resolve_target_pids(const std::vector<pid_t>& ids,
                                               std::vector<std::string>& notes);

// Compares the files of the sites with the files each process maps (by
// device and inode, so a path seen through another mount namespace still
// matches). Adds one warning per process and file it does not map, naming
// the probes there; fails when a probed file is mapped by none of them.
Status check_pids_map_sites(const std::vector<pid_t>& pids, const std::vector<ResolvedSite>& sites,
                            std::vector<std::string>& warnings);

}  // namespace usdt::record
