#include "formats/block_output.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/file_io.h"

namespace usdt::format {

Result<std::unique_ptr<FileOutput>> FileOutput::open(const std::string& path) {
  Result<UniqueFd> fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();
  return std::unique_ptr<FileOutput>(new FileOutput(path, std::move(*fd)));
}

Status FileOutput::write(std::string_view bytes) {
  return write_all(fd_.get(), bytes.data(), bytes.size());
}

Status FileOutput::close() {
  const int fd = fd_.release();
  if (::close(fd) != 0) return errno_error("cannot close '" + path_ + "'");
  return Status::success();
}

}  // namespace usdt::format
