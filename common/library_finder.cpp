#include "common/library_finder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// "libc.so.6" for name "libc": the part after "NAME.so", or nullopt when the
// file is not a version of that library.
std::optional<std::string_view> version_suffix(std::string_view file, std::string_view stem) {
  if (file.size() < stem.size() + 3 || file.substr(0, stem.size()) != stem) return std::nullopt;
  std::string_view rest = file.substr(stem.size());
  if (rest.substr(0, 3) != ".so") return std::nullopt;
  rest.remove_prefix(3);
  if (!rest.empty() && rest[0] != '.') return std::nullopt;
  return rest;
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
  if (name.empty() || name.find('/') != std::string_view::npos) {
    return Error(std::string("'").append(name).append("' is not a library name"));
  }
  std::vector<std::string> stems;
  bool exact = name.find(".so") != std::string_view::npos;
  stems.emplace_back(name);
  if (!exact && name.substr(0, 3) != "lib") stems.push_back(std::string("lib").append(name));

  for (const auto& stem : stems) {
    // The cache, in its order (the loader's preference).
    const LdCacheEntry* best = nullptr;
    for (const auto& e : cache_) {
      if (exact ? e.soname != stem : !version_suffix(e.soname, stem)) continue;
      if (best == nullptr || (!exact && compare_soname_versions(e.soname, best->soname) > 0)) best = &e;
    }
    if (best != nullptr) return best->path;

    // The standard directories.
    for (const auto& dir : directories_) {
      std::string best_path, best_name;
      std::error_code ec;
      if (exact) {
        std::string path = dir + "/" + stem;
        if (is_elf_file(path)) return path;
        continue;
      }
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::string file = entry.path().filename().string();
        if (!version_suffix(file, stem)) continue;
        std::string path = entry.path().string();
        if (!is_elf_file(path)) continue;
        if (best_name.empty() || compare_soname_versions(file, best_name) > 0) {
          best_name = file;
          best_path = path;
        }
      }
      if (!best_path.empty()) return best_path;
    }
  }
  return Error("cannot find library '" + std::string(name) +
               "' (searched /etc/ld.so.cache and the standard library directories)");
}

}  // namespace usdt
