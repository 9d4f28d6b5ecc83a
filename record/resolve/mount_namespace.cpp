#include "record/resolve/mount_namespace.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/unique_fd.h"

namespace usdt::record {

namespace {

// The file at path with every symbolic link resolved inside root (openat2's
// RESOLVE_IN_ROOT: as the process itself resolves it).
Result<struct stat> stat_in_root(const std::string& root, const std::string& path) {
  UniqueFd dir(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return errno_error("cannot open " + root);
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  UniqueFd file(static_cast<int>(syscall(SYS_openat2, dir.get(), path.c_str(), &how, sizeof how)));
  if (!file) return errno_error("cannot open '" + path + "' in " + root);
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return errno_error("cannot read '" + path + "' in " + root);
  return st;
}

}  // namespace

Result<std::string> path_in_mount_namespace(pid_t pid, const std::string& path) {
  const std::string root = "/proc/" + std::to_string(pid) + "/root";
  if (path.empty() || path[0] != '/') {
    return Error("--mount-ns-of needs an absolute path, not '" + path + "'");
  }
  Result<struct stat> inside = stat_in_root(root, path);
  if (!inside) {
    return inside.error().context("no file '" + path + "' in the mount namespace of PID " +
                                  std::to_string(pid));
  }
  if (!S_ISREG(inside->st_mode)) {
    return Error("'" + path + "' in the mount namespace of PID " + std::to_string(pid) +
                 " is not a regular file");
  }
  const std::string open_path = root + path;
  struct stat through {};
  if (::stat(open_path.c_str(), &through) != 0 || through.st_dev != inside->st_dev ||
      through.st_ino != inside->st_ino) {
    return Error("'" + path + "' in the mount namespace of PID " + std::to_string(pid) +
                 " goes through an absolute symbolic link: give the path of the file it names");
  }
  return open_path;
}

}  // namespace usdt::record
