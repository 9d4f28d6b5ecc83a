// Syscall helpers that retry EINTR and loop over short reads and writes.
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt {

// Opens with O_CLOEXEC always added. The error names the path.
Result<UniqueFd> open_file(const std::string& path, int flags, int mode = 0644);

// Writes all of data; fails on the first error other than EINTR (ENOSPC, EIO...).
Status write_all(int fd, const void* data, size_t size);

// Reads up to size bytes, stopping only at end of file or an error; returns
// how many bytes were read.
Result<size_t> read_full(int fd, void* data, size_t size);

// Reads a whole (small) file such as /proc/PID/maps or a sysfs attribute.
Result<std::string> read_text_file(const std::string& path);

// Whether path is a file that begins with the ELF magic (false when it
// cannot be opened or read).
bool is_elf_file(const std::string& path);

}  // namespace usdt
