#include "common/proc_maps.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>

#include "common/file_io.h"

namespace usdt {
namespace {

constexpr std::string_view kDeleted = " (deleted)";

// Splits off the next whitespace-delimited field.
std::string_view next_field(std::string_view* s) {
  size_t start = s->find_first_not_of(' ');
  if (start == std::string_view::npos) {
    *s = {};
    return {};
  }
  size_t end = s->find(' ', start);
  std::string_view field = s->substr(start, end - start);
  *s = end == std::string_view::npos ? std::string_view() : s->substr(end);
  return field;
}

bool parse_hex(std::string_view s, uint64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

Error proc_error(pid_t pid, const std::string& what, int err) {
  if (err == ENOENT || err == ESRCH) return Error("no process with PID " + std::to_string(pid));
  return Error("cannot read " + what + " of PID " + std::to_string(pid), err);
}

}  // namespace

Result<MapEntry> parse_maps_line(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  auto bad = [&] { return Error("malformed maps line '" + std::string(line) + "'"); };
  MapEntry e;
  std::string_view rest = line;
  std::string_view range = next_field(&rest);
  size_t dash = range.find('-');
  if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), &e.start) ||
      !parse_hex(range.substr(dash + 1), &e.end)) {
    return bad();
  }
  e.perms = std::string(next_field(&rest));
  if (e.perms.size() != 4 || !parse_hex(next_field(&rest), &e.offset)) return bad();
  e.dev = std::string(next_field(&rest));
  std::string_view inode = next_field(&rest);
  auto [p, ec] = std::from_chars(inode.data(), inode.data() + inode.size(), e.inode);
  if (e.dev.empty() || inode.empty() || ec != std::errc() || p != inode.data() + inode.size()) {
    return bad();
  }
  // The path is the rest after the padding; it may contain spaces.
  size_t start = rest.find_first_not_of(' ');
  if (start != std::string_view::npos) {
    std::string_view path = rest.substr(start);
    if (path.size() > kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted) {
      path.remove_suffix(kDeleted.size());
      e.deleted = true;
    }
    e.path = std::string(path);
  }
  return e;
}

Result<std::vector<MapEntry>> read_proc_maps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return proc_error(pid, "the memory maps", fd.error().errno_value());
  std::string text;
  char buf[65536];
  for (;;) {
    auto n = read_full(fd->get(), buf, sizeof buf);
    if (!n) return proc_error(pid, "the memory maps", n.error().errno_value());
    text.append(buf, *n);
    if (*n < sizeof buf) break;
  }
  std::vector<MapEntry> entries;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto e = parse_maps_line(std::string_view(text).substr(start, end - start));
    if (!e) return e.error().context(path);
    entries.push_back(std::move(*e));
    start = end + 1;
  }
  return entries;
}

Result<std::vector<MappedFile>> mapped_elf_files(pid_t pid) {
  auto maps = read_proc_maps(pid);
  if (!maps) return maps.error();
  std::string proc = "/proc/" + std::to_string(pid);

  std::string exe;
  char target[4096];
  ssize_t n = ::readlink((proc + "/exe").c_str(), target, sizeof target - 1);
  if (n > 0) {
    exe.assign(target, static_cast<size_t>(n));
    if (exe.size() > kDeleted.size() && exe.ends_with(kDeleted)) exe.resize(exe.size() - kDeleted.size());
  }

  std::vector<MappedFile> files;
  std::set<std::string> seen;
  for (const auto& m : *maps) {
    if (m.path.empty() || m.path[0] != '/' || m.inode == 0) continue;
    if (!seen.insert(m.path).second) continue;
    MappedFile f;
    f.path = m.path;
    f.deleted = m.deleted;
    if (m.deleted) {
      char range[64];
      std::snprintf(range, sizeof range, "%" PRIx64 "-%" PRIx64, m.start, m.end);
      f.open_path = proc + "/map_files/" + range;
    } else {
      f.open_path = proc + "/root" + m.path;
      // The plain path when it is the same file (the process shares our
      // mount namespace): it stays valid after the process exits, which
      // -a meets all the time among the processes it found at its start.
      struct stat rooted, plain;
      if (::stat(f.open_path.c_str(), &rooted) == 0 && ::stat(m.path.c_str(), &plain) == 0 &&
          rooted.st_dev == plain.st_dev && rooted.st_ino == plain.st_ino &&
          plain.st_ino == m.inode) {
        f.open_path = m.path;
      }
    }
    f.is_main_binary = m.path == exe;
    if (!is_elf_file(f.open_path)) continue;
    files.push_back(std::move(f));
  }
  // Main binary first, the rest in address order.
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].is_main_binary) {
      MappedFile main = std::move(files[i]);
      files.erase(files.begin() + static_cast<std::ptrdiff_t>(i));
      files.insert(files.begin(), std::move(main));
      break;
    }
  }
  return files;
}

std::string map_files_path(uint32_t pid, uint64_t start, uint64_t length) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "/proc/%u/map_files/%llx-%llx", pid,
                static_cast<unsigned long long>(start),
                static_cast<unsigned long long>(start + length));
  return buf;
}

}  // namespace usdt
