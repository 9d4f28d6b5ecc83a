#include "common/file_io.h"

#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace usdt {

Result<UniqueFd> open_file(const std::string& path, int flags, int mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_error("cannot open '" + path + "'");
  return UniqueFd(fd);
}

Status write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("write failed");
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::success();
}

Result<size_t> read_full(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("read failed");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

Result<std::string> read_text_file(const std::string& path) {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  std::string text;
  char buf[65536];
  for (;;) {
    auto n = read_full(fd->get(), buf, sizeof buf);
    if (!n) return n.error().context("cannot read '" + path + "'");
    text.append(buf, *n);
    if (*n < sizeof buf) break;
  }
  return text;
}

bool is_elf_file(const std::string& path) {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return false;
  char magic[4];
  auto n = read_full(fd->get(), magic, sizeof magic);
  return n && *n == 4 && std::memcmp(magic, "\177ELF", 4) == 0;
}

}  // namespace usdt
