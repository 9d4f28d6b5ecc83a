// Finds a shared library by name the way the dynamic loader would, without
// running any program: first /etc/ld.so.cache (glibc's "glibc-ld.so.cache1.1"
// format, written by ldconfig; layout from glibc's sysdeps/generic/dl-cache.h),
// then the standard library directories.
//
// A name with ".so" matches that file name ("libstdc++.so.6"), else a file
// that adds version components to it ("libruby-3.1.so" and
// "libruby-3.1.so.3.1" find libruby-3.1.so.3.1.2 when no file has that very
// name). A name without ".so" ("libstdc++", "libc", also "c" or "ruby")
// matches "NAME.so*" and, when no such file exists, "NAME-VERSION.so*" or
// "NAMEVERSION.so*" ("libruby" finds libruby-3.1.so.3.1, "python"
// libpython3.11.so.1.0); the highest version wins ("libc.so.6" over
// "libc.so", which is a linker script).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace usdt {

// One library entry of ld.so.cache.
struct LdCacheEntry {
  std::string soname;  // "libstdc++.so.6"
  std::string path;    // "/lib/x86_64-linux-gnu/libstdc++.so.6"
  int32_t flags = 0;   // FLAG_ELF_LIBC6 | architecture bits
};

class LibraryFinder {
 public:
  // Loads /etc/ld.so.cache; a missing or unreadable cache leaves only the
  // directory search (the loader behaves the same).
  static LibraryFinder system();
  // For tests: a given cache and directory list.
  LibraryFinder(std::vector<LdCacheEntry> cache, std::vector<std::string> directories)
      : cache_(std::move(cache)), directories_(std::move(directories)) {}

  // Parses the bytes of an ld.so.cache file; keeps only the entries for this
  // machine's architecture. Fails on a bad magic or out-of-bounds offsets.
  static Result<std::vector<LdCacheEntry>> parse_cache(std::string_view bytes);

  // The path of the library (as the cache or the directory names it), or an
  // error naming what was searched.
  Result<std::string> find(std::string_view name) const;

  // What find() found, and the other libraries the name matched (distinct
  // files, by their canonical paths): a short name such as "ruby" with two
  // Ruby versions installed is ambiguous, and the caller says which won.
  struct Match {
    std::string path;
    std::vector<std::string> others;
  };
  Result<Match> lookup(std::string_view name) const;

  const std::vector<LdCacheEntry>& cache() const { return cache_; }

 private:
  std::vector<LdCacheEntry> cache_;
  std::vector<std::string> directories_;
};

// The path with every symbolic link resolved ("/lib/x86_64-linux-gnu/
// libruby-3.1.so.3.1" -> "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2"):
// the one spelling a file is shown with, as /proc/PID/maps shows it. The
// path itself when it cannot be resolved.
std::string canonical_path(const std::string& path);

// Whether a command-line TARGET looks like a library name rather than a path:
// no '/' and a "lib" prefix or a ".so" in it.
bool looks_like_library_name(std::string_view target);

// Compares the version suffixes of two sonames of one library ("libc.so.6" >
// "libc.so"; "libfoo.so.1.10" > "libfoo.so.1.9"): negative, zero, positive.
int compare_soname_versions(std::string_view a, std::string_view b);

}  // namespace usdt
