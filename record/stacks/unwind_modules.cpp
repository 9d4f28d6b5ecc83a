#include "record/stacks/unwind_modules.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "common/elf_file.h"
#include "common/file_io.h"
#include "common/proc_maps.h"
#include "common/unique_fd.h"
#include "record/dwarf/debuginfo_finder.h"

namespace usdt::record {
namespace {

constexpr uint64_t kPageMask = ~uint64_t{0xfff};
constexpr const char* kVdso = "[vdso]";
// A vdso is two pages; anything much larger is not one.
constexpr uint64_t kMaxVdsoSize = 1 << 20;

// libdwfl asks these only for modules without a preinstalled Elf (we
// preinstall all) and for separate debuginfo: none is looked for, so that a
// recording never searches the disk or the network (debuginfod) mid-run.
int no_elf(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) { return -1; }
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word,
                 char**) {
  return -1;
}
const Dwfl_Callbacks kCallbacks = {
    .find_elf = no_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

bool is_file_backed(const std::string& path) {
  return !path.empty() && path[0] == '/' && path != "//anon";
}

// Whether the file at path, opened instead of the process's own view of it
// (/proc/PID/root/PATH, gone once the process exited, or not readable), is
// the file mapped. A process in another mount namespace may map a different
// file under the same name; unwinding with its tables would invent frames.
// The build-id the kernel gave with the mapping decides; without one (a file
// without the note) the path is taken at its word.
bool is_mapped_file(const std::string& build_id, const std::string& path) {
  if (build_id.empty()) return true;
  Result<ElfFile> elf = ElfFile::open(path);
  return elf && elf_build_id(elf->get()) == build_id;
}

std::string cache_key(const ExecMapping& mapping, const std::string& open_path) {
  if (!mapping.build_id.empty()) return mapping.path + '\0' + mapping.build_id;
  struct stat st {};
  if (stat(open_path.c_str(), &st) != 0) return mapping.path;
  return mapping.path + '\0' + std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
         std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::optional<uint64_t> ElfLoadLayout::bias_of(uint64_t start, uint64_t file_offset) const {
  for (const Segment& seg : loads) {
    // The kernel maps a segment from its page-aligned offset.
    if (file_offset < (seg.offset & kPageMask) || file_offset >= seg.offset + seg.filesz) continue;
    const uint64_t link_address = seg.vaddr - seg.offset + file_offset;
    const uint64_t bias = start - link_address;
    if (is_exec && bias != 0) return std::nullopt;
    return bias;
  }
  return std::nullopt;
}

std::optional<ElfLoadLayout> read_load_layout(Elf* elf) {
  GElf_Ehdr ehdr_mem;
  const GElf_Ehdr* ehdr = gelf_getehdr(elf, &ehdr_mem);
  if (ehdr == nullptr || (ehdr->e_type != ET_EXEC && ehdr->e_type != ET_DYN)) return std::nullopt;
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  ElfLoadLayout layout;
  layout.is_exec = ehdr->e_type == ET_EXEC;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr_mem;
    const GElf_Phdr* ph = gelf_getphdr(elf, static_cast<int>(i), &phdr_mem);
    if (ph == nullptr) return std::nullopt;
    if (ph->p_type != PT_LOAD) continue;
    if (layout.loads.empty()) {
      const uint64_t align = ph->p_align > 1 ? ph->p_align : 1;
      layout.low = ph->p_vaddr & ~(align - 1);  // as libdwfl computes a module's start
    }
    layout.high = std::max(layout.high, ph->p_vaddr + ph->p_memsz);
    layout.loads.push_back({ph->p_vaddr, ph->p_offset, ph->p_filesz});
  }
  if (layout.loads.empty() || layout.high <= layout.low) return std::nullopt;
  return layout;
}

const ElfLoadLayout* LoadLayoutCache::find(const ExecMapping& mapping,
                                           const std::string& open_path) {
  const std::string key = cache_key(mapping, open_path);
  auto it = layouts_.find(key);
  if (it == layouts_.end()) {
    // Remembered only once opened: a failed open of /proc/PID/root/PATH
    // (the process exited after the access() check) cached here made the
    // fallback to PATH, under the same key, fail too, for every process of
    // the recording, and their stacks stopped at that file's frames.
    Result<ElfFile> file = ElfFile::open(open_path);
    if (!file) return nullptr;
    it = layouts_.emplace(key, read_load_layout(file->get())).first;
  }
  return it->second ? &*it->second : nullptr;
}

const std::vector<uint8_t>* UnwindModules::vdso_image(const ExecMapping& mapping) {
  if (!vdso_tried_) {
    vdso_tried_ = true;
    const uint64_t size = mapping.end - mapping.start;
    auto fd = open_file("/proc/" + std::to_string(pid_) + "/mem", O_RDONLY | O_CLOEXEC);
    if (fd && size <= kMaxVdsoSize) {
      std::vector<uint8_t> image(size);
      ssize_t got = pread(fd->get(), image.data(), size, static_cast<off_t>(mapping.start));
      if (got == static_cast<ssize_t>(size)) {
        static const bool initialized = elf_version(EV_CURRENT) != EV_NONE;
        Elf* elf = initialized ? elf_memory(reinterpret_cast<char*>(image.data()), size) : nullptr;
        if (elf != nullptr) {
          vdso_layout_ = read_load_layout(elf);
          elf_end(elf);
        }
        if (vdso_layout_) vdso_ = std::move(image);
      }
    }
  }
  return vdso_layout_ ? &vdso_ : nullptr;
}

std::vector<UnwindModules::Module> UnwindModules::wanted_modules(const ProcessMappings& maps,
                                                                 LoadLayoutCache& layouts) {
  std::vector<Module> wanted;
  for (const ExecMapping& mapping : maps.all()) {
    const ElfLoadLayout* layout = nullptr;
    std::string file;
    if (mapping.path == kVdso) {
      if (vdso_image(mapping) != nullptr) layout = &*vdso_layout_;
    } else if (is_file_backed(mapping.path)) {
      file = open_path(mapping);
      if (!file.empty()) layout = layouts.find(mapping, file);
      // The process may exit between the check and the read: its
      // /proc/PID/root is gone then, the path itself still works.
      if (layout == nullptr && file != mapping.path &&
          is_mapped_file(mapping.build_id, mapping.path)) {
        file = mapping.path;
        layout = layouts.find(mapping, file);
      }
    }
    if (layout == nullptr) continue;
    const std::optional<uint64_t> bias = layout->bias_of(mapping.start, mapping.file_offset);
    if (!bias) continue;
    Module module{mapping.path,         *bias, layout->low + *bias,
                  layout->high + *bias, file,  mapping.build_id};
    // One module per loaded file, however many executable mappings it has.
    if (std::find(wanted.begin(), wanted.end(), module) != wanted.end()) continue;
    wanted.push_back(std::move(module));
  }
  return wanted;
}

std::string UnwindModules::open_path(const ExecMapping& mapping) const {
  // Through the process's root, so that a process in a container finds its
  // own files; the plain path when that is not readable (no permission, or
  // the process is gone) and is the mapped file (is_mapped_file); the
  // mapping itself when no path names the file (a memfd, "/memfd:NAME
  // (deleted)", or a file deleted since it was mapped); else nothing.
  std::string rooted = "/proc/" + std::to_string(pid_) + "/root" + mapping.path;
  if (access(rooted.c_str(), R_OK) == 0) return rooted;
  if (access(mapping.path.c_str(), R_OK) == 0 && is_mapped_file(mapping.build_id, mapping.path)) {
    return mapping.path;
  }
  // stat(), not access(): access() on map_files fails with ENOENT even for
  // root on Linux 6.18, where opening it works.
  std::string mapped = map_files_path(pid_, mapping.start, mapping.end - mapping.start);
  struct stat st;
  if (stat(mapped.c_str(), &st) == 0) return mapped;
  // Nothing that is surely the mapped file: none (the caller skips it).
  return is_mapped_file(mapping.build_id, mapping.path) ? mapping.path : std::string();
}

bool UnwindModules::report(const Module& module) {
  // Overlapping modules would make address lookups ambiguous: the first wins.
  for (const Module& other : reported_) {
    if (module.low < other.high && other.low < module.high) return false;
  }
  Dwfl_Module* reported = nullptr;
  if (module.path == kVdso) {
    UniqueFd fd(memfd_create("usdt-vdso", MFD_CLOEXEC));
    if (!fd || !write_all(fd.get(), vdso_.data(), vdso_.size()).ok()) return false;
    reported = dwfl_report_elf(dwfl_.get(), kVdso, kVdso, fd.get(), module.bias, true);
    if (reported != nullptr) fd.release();  // libdwfl owns it now
  } else {
    reported = dwfl_report_elf(dwfl_.get(), module.path.c_str(), module.file.c_str(), -1,
                               module.bias, true);
    // /proc/PID/root/... of a process that has exited since: the path.
    if (reported == nullptr && module.file != module.path) {
      reported = dwfl_report_elf(dwfl_.get(), module.path.c_str(), module.path.c_str(), -1,
                                 module.bias, true);
    }
  }
  if (reported == nullptr) return false;
  reported_.push_back(module);
  return true;
}

UnwindModules::Change UnwindModules::sync(const ProcessMappings& maps, LoadLayoutCache& layouts) {
  if (dwfl_ && maps_seen_ == &maps && generation_seen_ == maps.generation()) return Change::none;
  maps_seen_ = &maps;
  generation_seen_ = maps.generation();

  const std::vector<Module> wanted = wanted_modules(maps, layouts);
  const bool only_additions =
      dwfl_ && std::all_of(reported_.begin(), reported_.end(), [&](const Module& m) {
        return std::find(wanted.begin(), wanted.end(), m) != wanted.end();
      });
  Change change = Change::added;
  if (only_additions) {
    dwfl_report_begin_add(dwfl_.get());
  } else {
    // A module cannot be taken out of a Dwfl that keeps the others: start over.
    change = Change::rebuilt;
    reported_.clear();
    dwfl_.reset(dwfl_begin(&kCallbacks));
    if (!dwfl_) return change;
    dwfl_report_begin(dwfl_.get());
  }
  const size_t before = reported_.size();
  for (const Module& module : wanted) {
    if (std::find(reported_.begin(), reported_.end(), module) != reported_.end()) continue;
    report(module);
  }
  dwfl_report_end(dwfl_.get(), nullptr, nullptr);
  if (change == Change::added && reported_.size() == before) return Change::none;
  return change;
}

}  // namespace usdt::record
