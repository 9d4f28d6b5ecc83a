// /proc/PID/maps: the memory mappings of a process (proc(5)). A line is
//   start-end perms offset dev inode [path]
// where the path may contain spaces and ends in " (deleted)" when the file
// was removed or replaced after mapping. Files are opened through
// /proc/PID/root/PATH so that a process in another mount namespace
// (a container) is read correctly, and through /proc/PID/map_files/ when the
// file was deleted; the path shown to the user is the one in maps.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace usdt {

struct MapEntry {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string perms;  // "r-xp"
  uint64_t offset = 0;
  std::string dev;    // "fd:01"
  uint64_t inode = 0;
  std::string path;   // empty for anonymous mappings; "[heap]" and the like as is
  bool deleted = false;  // path had " (deleted)", which is stripped from path
};

// A distinct ELF file mapped by a process.
struct MappedFile {
  std::string path;       // as in maps (without " (deleted)")
  // Where to read it: PATH when that is the mapped file, else
  // /proc/PID/root/PATH (another mount namespace), or
  // /proc/PID/map_files/START-END for a deleted file.
  std::string open_path;
  bool deleted = false;
  bool is_main_binary = false;  // the file /proc/PID/exe names
};

// Parses one maps line; fails on a line that does not have the five fields.
Result<MapEntry> parse_maps_line(std::string_view line);

// Reads and parses /proc/PID/maps. Fails with "no process with PID N" when
// the process does not exist, or a permission error (errno EACCES/EPERM)
// when it cannot be read.
Result<std::vector<MapEntry>> read_proc_maps(pid_t pid);

// Every distinct mapped ELF file of the process, main binary first, then in
// address order. Files that cannot be opened or are not ELF are skipped.
Result<std::vector<MappedFile>> mapped_elf_files(pid_t pid);

// "/proc/PID/map_files/START-END": the file behind one mapping, opened by
// root even when no path names it (a memfd, a file deleted since).
std::string map_files_path(uint32_t pid, uint64_t start, uint64_t length);

}  // namespace usdt
