// Move-only owner of an open ELF file: the fd and libelf's Elf* handle, closed
// together. Opening fails (naming the path) when the file is missing,
// unreadable or not ELF; nothing half-open ever exists.
#pragma once

#include <gelf.h>
#include <libelf.h>

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt {

class ElfFile {
 public:
  // Opens path read-only and checks the ELF identification.
  static Result<ElfFile> open(const std::string& path);

  ElfFile(ElfFile&& other) noexcept;
  ElfFile& operator=(ElfFile&& other) noexcept;
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  Elf* get() const { return elf_; }
  const std::string& path() const { return path_; }
  bool is_64bit() const { return gelf_getclass(elf_) == ELFCLASS64; }
  bool is_little_endian() const;
  uint16_t machine() const;

  // The first section with this name, or nullptr.
  Elf_Scn* find_section(std::string_view name) const;
  // The name of a section ("" when unknown).
  std::string section_name(Elf_Scn* scn) const;

 private:
  ElfFile(UniqueFd fd, Elf* elf, std::string path)
      : fd_(std::move(fd)), elf_(elf), path_(std::move(path)) {}

  UniqueFd fd_;
  Elf* elf_ = nullptr;
  std::string path_;
};

}  // namespace usdt
