#include "common/elf_file.h"

#include <fcntl.h>

#include <utility>

#include "common/file_io.h"

namespace usdt {

Result<ElfFile> ElfFile::open(const std::string& path) {
  // elf_version must be called once before any other libelf call.
  static const bool initialized = elf_version(EV_CURRENT) != EV_NONE;
  if (!initialized) return Error("libelf is too old");
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  Elf* elf = elf_begin(fd->get(), ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) {
    return Error("cannot read '" + path + "': " + elf_errmsg(-1));
  }
  if (elf_kind(elf) != ELF_K_ELF) {
    elf_end(elf);
    return Error("'" + path + "' is not an ELF file");
  }
  return ElfFile(std::move(*fd), elf, path);
}

ElfFile::ElfFile(ElfFile&& other) noexcept
    : fd_(std::move(other.fd_)), elf_(std::exchange(other.elf_, nullptr)), path_(std::move(other.path_)) {}

ElfFile& ElfFile::operator=(ElfFile&& other) noexcept {
  if (this != &other) {
    if (elf_ != nullptr) elf_end(elf_);
    elf_ = std::exchange(other.elf_, nullptr);
    fd_ = std::move(other.fd_);
    path_ = std::move(other.path_);
  }
  return *this;
}

ElfFile::~ElfFile() {
  if (elf_ != nullptr) elf_end(elf_);
}

bool ElfFile::is_little_endian() const {
  const char* ident = elf_getident(elf_, nullptr);
  return ident != nullptr && ident[EI_DATA] == ELFDATA2LSB;
}

uint16_t ElfFile::machine() const {
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf_, &ehdr) == nullptr) return EM_NONE;
  return ehdr.e_machine;
}

Elf_Scn* ElfFile::find_section(std::string_view name) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    if (section_name(scn) == name) return scn;
  }
  return nullptr;
}

std::string ElfFile::section_name(Elf_Scn* scn) const {
  size_t shstrndx = 0;
  GElf_Shdr shdr;
  if (elf_getshdrstrndx(elf_, &shstrndx) != 0 || gelf_getshdr(scn, &shdr) == nullptr) return "";
  const char* name = elf_strptr(elf_, shstrndx, shdr.sh_name);
  return name != nullptr ? name : "";
}

}  // namespace usdt
