#include "common/library_finder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/file_io.h"

namespace usdt {
namespace {

constexpr std::string_view kCacheMagic = "glibc-ld.so.cache1.1";
constexpr size_t kHeaderSize = 48;  // magic+version 20, nlibs, len_strings, flags+pad, ext, unused[3]
constexpr size_t kEntrySize = 24;   // flags, key, value, osversion, hwcap (u64)
constexpr int32_t kFlagTypeMask = 0x00ff;
constexpr int32_t kFlagElfLibc6 = 0x0003;
constexpr int32_t kFlagRequiredMask = 0xff00;
#if defined(__x86_64__)
constexpr int32_t kFlagArch = 0x0300;  // FLAG_X8664_LIB64
#elif defined(__aarch64__)
constexpr int32_t kFlagArch = 0x0a00;  // FLAG_AARCH64_LIB64
#else
constexpr int32_t kFlagArch = -1;  // unknown: accept every entry
#endif

const char* const kStandardDirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
    "/usr/lib",              "/usr/local/lib",
};

uint32_t read_u32(std::string_view bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

std::optional<std::string> cstring_at(std::string_view bytes, uint32_t offset) {
  if (offset >= bytes.size()) return std::nullopt;
  size_t end = bytes.find('\0', offset);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(bytes.substr(offset, end - offset));
}

// How a file name matches a library name, better ones higher; 0: not at
// all. A name with ".so": 3 the very name, 1 the name plus version
// components ("NAME.3.1.2"). A stem (no ".so"): 2 "STEM.so" or "STEM.so.*",
// 1 "STEM-VERSION.so*" or "STEMVERSION.so*", VERSION digits and dots.
int match_rank(std::string_view file, std::string_view name, bool has_so) {
  if (file.substr(0, name.size()) != name) return 0;
  std::string_view rest = file.substr(name.size());
  if (has_so) {
    if (rest.empty()) return 3;
    return rest.size() > 1 && rest[0] == '.' && std::isdigit(static_cast<unsigned char>(rest[1]))
               ? 1
               : 0;
  }
  size_t so = rest.find(".so");
  if (so == std::string_view::npos) return 0;
  std::string_view after = rest.substr(so + 3);
  if (!after.empty() && after[0] != '.') return 0;
  std::string_view version = rest.substr(0, so);
  if (version.empty()) return 2;
  if (version[0] == '-') version.remove_prefix(1);
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front())) ||
      !std::isdigit(static_cast<unsigned char>(version.back()))) {
    return 0;
  }
  for (char c : version) {
    if (c != '.' && !std::isdigit(static_cast<unsigned char>(c))) return 0;
  }
  return 1;
}

// The numbers in a file name, in order: "libruby-3.1.so.3.1" -> 3 1 3 1.
std::vector<uint64_t> numbers_in(std::string_view s) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < s.size();) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    out.push_back(ec == std::errc() ? v : 0);
    i = static_cast<size_t>(p - s.data());
    if (ec != std::errc()) break;
  }
  return out;
}

struct Candidate {
  std::string path;
  std::string file;  // its name
  int rank = 0;
};

// Whether a is the better choice: the better match, then the higher version.
bool better(const Candidate& a, const Candidate& b) {
  if (a.rank != b.rank) return a.rank > b.rank;
  return numbers_in(a.file) > numbers_in(b.file);
}

// The best candidate and the other files among them, by canonical path.
LibraryFinder::Match choose(const std::vector<Candidate>& candidates) {
  const Candidate* best = &candidates.front();
  for (const Candidate& c : candidates) {
    if (better(c, *best)) best = &c;
  }
  LibraryFinder::Match match{best->path, {}};
  const std::string chosen = canonical_path(best->path);
  for (const Candidate& c : candidates) {
    std::string other = canonical_path(c.path);
    if (other == chosen) continue;
    if (std::find(match.others.begin(), match.others.end(), other) == match.others.end()) {
      match.others.push_back(other);
    }
  }
  return match;
}

}  // namespace

int compare_soname_versions(std::string_view a, std::string_view b) {
  auto components = [](std::string_view s) {
    std::vector<uint64_t> out;
    size_t so = s.find(".so");
    s = so == std::string_view::npos ? std::string_view() : s.substr(so + 3);
    while (!s.empty()) {
      if (s[0] == '.') s.remove_prefix(1);
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      out.push_back(ec == std::errc() ? v : 0);
      size_t dot = s.find('.');
      s = dot == std::string_view::npos ? std::string_view() : s.substr(dot);
      (void)p;
    }
    return out;
  };
  auto ca = components(a), cb = components(b);
  for (size_t i = 0; i < ca.size() && i < cb.size(); ++i) {
    if (ca[i] != cb[i]) return ca[i] < cb[i] ? -1 : 1;
  }
  if (ca.size() != cb.size()) return ca.size() < cb.size() ? -1 : 1;
  return 0;
}

bool looks_like_library_name(std::string_view target) {
  if (target.find('/') != std::string_view::npos) return false;
  return target.substr(0, 3) == "lib" || target.find(".so") != std::string_view::npos;
}

Result<std::vector<LdCacheEntry>> LibraryFinder::parse_cache(std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, kCacheMagic.size()) != kCacheMagic) {
    return Error("not a glibc-ld.so.cache1.1 file");
  }
  uint32_t nlibs = read_u32(bytes, 20);
  if (nlibs > (bytes.size() - kHeaderSize) / kEntrySize) {
    return Error("ld.so.cache claims " + std::to_string(nlibs) + " entries, more than fit");
  }
  std::vector<LdCacheEntry> entries;
  for (uint32_t i = 0; i < nlibs; ++i) {
    size_t at = kHeaderSize + i * kEntrySize;
    auto flags = static_cast<int32_t>(read_u32(bytes, at));
    if ((flags & kFlagTypeMask) != kFlagElfLibc6) continue;
    if (kFlagArch != -1 && (flags & kFlagRequiredMask) != kFlagArch) continue;
    // String offsets are relative to the start of the new-format header,
    // which is the start of the file for caches written since glibc 2.32.
    auto key = cstring_at(bytes, read_u32(bytes, at + 4));
    auto value = cstring_at(bytes, read_u32(bytes, at + 8));
    if (!key || !value) return Error("ld.so.cache entry " + std::to_string(i) + " has a bad string offset");
    entries.push_back({std::move(*key), std::move(*value), flags});
  }
  return entries;
}

LibraryFinder LibraryFinder::system() {
  std::vector<LdCacheEntry> cache;
  if (auto bytes = read_text_file("/etc/ld.so.cache")) {
    if (auto parsed = parse_cache(*bytes)) cache = std::move(*parsed);
  }
  std::vector<std::string> dirs(std::begin(kStandardDirs), std::end(kStandardDirs));
  return LibraryFinder(std::move(cache), std::move(dirs));
}

Result<std::string> LibraryFinder::find(std::string_view name) const {
  Result<Match> match = lookup(name);
  if (!match) return match.error();
  return std::move(match->path);
}

Result<LibraryFinder::Match> LibraryFinder::lookup(std::string_view name) const {
  if (name.empty() || name.find('/') != std::string_view::npos) {
    return Error(std::string("'").append(name).append("' is not a library name"));
  }
  const bool has_so = name.find(".so") != std::string_view::npos;
  std::vector<std::string> stems{std::string(name)};
  if (!has_so && name.substr(0, 3) != "lib") stems.push_back(std::string("lib").append(name));

  for (const auto& stem : stems) {
    // The cache first (what the loader consults), then the directories in
    // order: the first directory with a match decides, as for the loader.
    std::vector<Candidate> candidates;
    for (const auto& e : cache_) {
      if (int rank = match_rank(e.soname, stem, has_so); rank != 0) {
        candidates.push_back({e.path, e.soname, rank});
      }
    }
    if (!candidates.empty()) return choose(candidates);
    for (const auto& dir : directories_) {
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::string file = entry.path().filename().string();
        int rank = match_rank(file, stem, has_so);
        if (rank == 0 || !is_elf_file(entry.path().string())) continue;
        candidates.push_back({entry.path().string(), file, rank});
      }
      if (!candidates.empty()) return choose(candidates);
    }
  }
  return Error("cannot find library '" + std::string(name) +
               "' (searched /etc/ld.so.cache and the standard library directories)");
}

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(path, ec);
  return ec ? path : canonical.string();
}

}  // namespace usdt
