#include "record/resolve/target_processes.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "common/file_io.h"
#include "common/proc_maps.h"

namespace usdt::record {
namespace {

// PF_KTHREAD in the kernel's include/linux/sched.h: the flags field of
// /proc/PID/stat has it for kernel threads.
constexpr unsigned long kKernelThreadFlag = 0x00200000;

std::string proc_path(pid_t id, const char* file) {
  return "/proc/" + std::to_string(id) + "/" + file;
}

// "Tgid:\t1234" of /proc/ID/status; 0 when unreadable.
pid_t read_tgid(pid_t id) {
  Result<std::string> status = read_text_file(proc_path(id, "status"));
  if (!status) return 0;
  size_t at = status->find("\nTgid:");
  if (at == std::string::npos) return 0;
  std::string_view rest = std::string_view(*status).substr(at + 6);
  while (!rest.empty() && (rest.front() == '\t' || rest.front() == ' ')) rest.remove_prefix(1);
  pid_t tgid = 0;
  std::from_chars(rest.data(), rest.data() + rest.size(), tgid);
  return tgid;
}

// Whether /proc/ID/stat says kernel thread; its comm in *comm.
bool is_kernel_thread(pid_t id, std::string* comm) {
  Result<std::string> stat = read_text_file(proc_path(id, "stat"));
  if (!stat) return false;
  // "pid (comm) S ppid pgrp session tty_nr tpgid flags ...": comm may hold ')'.
  size_t open = stat->find('(');
  size_t close = stat->rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  *comm = stat->substr(open + 1, close - open - 1);
  std::istringstream fields(stat->substr(close + 1));
  std::string field;
  unsigned long flags = 0;
  for (int i = 0; i < 7 && fields >> field; ++i) {
    if (i == 6) std::from_chars(field.data(), field.data() + field.size(), flags);
  }
  return (flags & kKernelThreadFlag) != 0;
}

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator<(const FileId& o) const { return std::tie(dev, ino) < std::tie(o.dev, o.ino); }
};

bool file_id(const std::string& path, FileId* id) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  *id = {st.st_dev, st.st_ino};
  return true;
}

// A maps line's "fd:01" (hex major:minor) as a dev_t; false if malformed.
bool parse_dev(const std::string& text, dev_t* dev) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return false;
  unsigned major_part = 0, minor_part = 0;
  auto a = std::from_chars(text.data(), text.data() + colon, major_part, 16);
  auto b = std::from_chars(text.data() + colon + 1, text.data() + text.size(), minor_part, 16);
  if (a.ec != std::errc() || b.ec != std::errc()) return false;
  *dev = makedev(major_part, minor_part);
  return true;
}

// What one process maps, by device and inode as its maps file states them
// (no need to open the files, which another user's process may not allow)
// and by path.
struct Mapped {
  std::set<FileId> ids;
  std::set<std::string> paths;
  bool maps(const FileId& id, const std::string& path) const {
    return ids.count(id) != 0 || paths.count(path) != 0;
  }
};

}  // namespace

Result<std::vector<pid_t>> resolve_target_pids(const std::vector<pid_t>& ids,
                                               std::vector<std::string>& notes) {
  std::vector<pid_t> pids;
  for (pid_t id : ids) {
    pid_t tgid = read_tgid(id);
    if (tgid <= 0) return Error("no process with PID " + std::to_string(id));
    std::string comm;
    if (is_kernel_thread(id, &comm)) {
      return Error("PID " + std::to_string(id) + " (" + comm +
                   ") is a kernel thread: it maps no files and runs no probes");
    }
    if (tgid != id) {
      notes.push_back("TID " + std::to_string(id) + " is a thread of PID " + std::to_string(tgid) +
                      ": tracing the process");
    }
    if (std::find(pids.begin(), pids.end(), tgid) == pids.end()) pids.push_back(tgid);
  }
  return pids;
}

Status check_pids_map_sites(const std::vector<pid_t>& pids, const std::vector<ResolvedSite>& sites,
                            std::vector<std::string>& warnings) {
  // The probed files, each with the probes it holds, in the order of the sites.
  std::vector<std::pair<const ResolvedSite*, std::set<std::string>>> files;
  for (const ResolvedSite& site : sites) {
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const auto& f) { return f.first->open_path == site.open_path; });
    if (it == files.end()) it = files.insert(files.end(), {&site, {}});
    it->second.insert(site.provider + ":" + site.name);
  }
  // A process whose maps cannot be read is not judged: attaching will say why.
  std::map<pid_t, Mapped> mapped;
  for (pid_t pid : pids) {
    Result<std::vector<MapEntry>> maps = read_proc_maps(pid);
    if (!maps || maps->empty()) continue;
    Mapped& m = mapped[pid];
    for (const MapEntry& e : *maps) {
      if (e.inode == 0 || e.path.empty()) continue;
      dev_t dev;
      if (parse_dev(e.dev, &dev)) m.ids.insert({dev, static_cast<ino_t>(e.inode)});
      m.paths.insert(e.path);
    }
  }
  for (const auto& [site, probes] : files) {
    FileId id;
    if (!file_id(site->open_path, &id)) continue;  // the kernel will say why
    std::string names;
    for (const std::string& p : probes) names += (names.empty() ? "" : ", ") + p;
    std::string missing;
    size_t mapping = 0;
    for (pid_t pid : pids) {
      auto m = mapped.find(pid);
      if (m == mapped.end() || m->second.maps(id, site->path)) {
        ++mapping;
        continue;
      }
      missing += (missing.empty() ? "" : ", ") + std::to_string(pid);
      warnings.push_back("PID " + std::to_string(pid) + " does not map '" + site->path +
                         "': probe " + names + " cannot fire in it");
    }
    if (mapping == 0) {
      return Error("no traced process maps '" + site->path + "' (probe " + names + "; PID" +
                   (pids.size() == 1 ? " " : "s ") + missing + ")");
    }
  }
  return Status::success();
}

}  // namespace usdt::record
