// Files as another process sees them: a container has a mount namespace of
// its own, where /usr/bin/app may be a file the host has at another path,
// or nowhere the host can name. /proc/PID/root is that process's root
// directory (proc(5)): through it the recorder opens, and the kernel
// probes, the very file (usdt-record --mount-ns-of PID).
#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"

namespace usdt::record {

// Where the recorder finds path (absolute, as process pid sees it):
// "/proc/PID/root" + path. Fails when the process is gone, the file is not
// a regular file there, or its path goes through an absolute symbolic link
// (which /proc/PID/root would follow in the recorder's own root, not the
// process's: the file it names is the one to give).
Result<std::string> path_in_mount_namespace(pid_t pid, const std::string& path);

}  // namespace usdt::record
