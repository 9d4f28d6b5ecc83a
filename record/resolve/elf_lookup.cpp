#include "record/resolve/elf_lookup.h"

#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <set>

#include "common/elf_file.h"

namespace usdt::record {
namespace {

struct DynamicInfo {
  std::vector<std::string> needed;
  std::vector<std::string> search_dirs;  // RUNPATH or RPATH, $ORIGIN expanded
};

std::vector<std::string> split_path_list(const std::string& list, const std::string& origin) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    std::string dir =
        list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    for (const char* token : {"$ORIGIN", "${ORIGIN}"}) {
      size_t pos = dir.find(token);
      if (pos != std::string::npos) dir.replace(pos, std::string(token).size(), origin);
    }
    if (!dir.empty()) dirs.push_back(dir);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return dirs;
}

DynamicInfo read_dynamic(const std::string& path) {
  DynamicInfo info;
  Result<ElfFile> elf = ElfFile::open(path);
  if (!elf) return info;
  std::string origin = path.substr(0, path.rfind('/'));
  std::string rpath, runpath;
  for (Elf_Scn* scn = elf_nextscn(elf->get(), nullptr); scn != nullptr;
       scn = elf_nextscn(elf->get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_DYNAMIC) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Dyn dyn;
      if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr) break;
      if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH) continue;
      const char* s = elf_strptr(elf->get(), shdr.sh_link, dyn.d_un.d_val);
      if (s == nullptr) continue;
      if (dyn.d_tag == DT_NEEDED) info.needed.emplace_back(s);
      if (dyn.d_tag == DT_RPATH) rpath = s;
      if (dyn.d_tag == DT_RUNPATH) runpath = s;
    }
  }
  info.search_dirs = split_path_list(runpath.empty() ? rpath : runpath, origin);
  return info;
}

std::string find_library(const std::string& name, const std::vector<std::string>& dirs,
                         const LibraryFinder& finder) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), R_OK) == 0 ? name : "";
  std::vector<std::string> search = dirs;
  if (const char* env = std::getenv("LD_LIBRARY_PATH")) {
    for (std::string& d : split_path_list(env, ".")) search.push_back(std::move(d));
  }
  for (const std::string& dir : search) {
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  Result<std::string> found = finder.find(name);
  return found ? *found : "";
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& binary, const LibraryFinder& finder) {
  std::vector<std::string> libraries;
  std::set<std::string> seen{canonical_path(binary)};
  std::deque<std::string> queue{binary};
  while (!queue.empty()) {
    std::string file = queue.front();
    queue.pop_front();
    DynamicInfo info = read_dynamic(file);
    for (const std::string& name : info.needed) {
      std::string found = find_library(name, info.search_dirs, finder);
      if (found.empty()) continue;
      // One spelling per file ("/lib/..." from ld.so.cache and "/usr/lib/..."
      // from /proc/PID/maps are one file on a merged-/usr system).
      std::string path = canonical_path(found);
      if (!seen.insert(path).second) continue;
      libraries.push_back(path);
      queue.push_back(path);
    }
  }
  return libraries;
}

bool is_dynamic_executable(const std::string& path) {
  Result<ElfFile> elf = ElfFile::open(path);
  if (!elf) return false;
  size_t phnum = 0;
  if (elf_getphdrnum(elf->get(), &phnum) != 0) return false;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf->get(), static_cast<int>(i), &phdr) != nullptr &&
        phdr.p_type == PT_INTERP) {
      return true;
    }
  }
  return false;
}

bool semaphore_page_mapped_twice(const std::string& path, uint64_t semaphore_offset) {
  Result<ElfFile> elf = ElfFile::open(path);
  if (!elf) return false;
  size_t phnum = 0;
  if (elf_getphdrnum(elf->get(), &phnum) != 0) return false;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  int writable = 0;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf->get(), static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_W) == 0 || phdr.p_filesz == 0) continue;
    // The file range the loader maps for this segment, whole pages.
    uint64_t begin = phdr.p_offset & ~(page - 1);
    uint64_t end = (phdr.p_offset + phdr.p_filesz + page - 1) & ~(page - 1);
    if (semaphore_offset >= begin && semaphore_offset < end) ++writable;
  }
  return writable > 1;
}

}  // namespace usdt::record
