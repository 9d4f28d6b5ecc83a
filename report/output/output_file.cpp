#include "report/output/output_file.h"

namespace usdt::report {

Result<OutputFile> OutputFile::create(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (file == nullptr) return errno_error("cannot create '" + path + "'");
  return OutputFile(file, path);
}

Status OutputFile::close() {
  std::FILE* file = std::exchange(file_, nullptr);
  if (file == nullptr) return Status::success();
  if (std::fclose(file) != 0) return errno_error("cannot write '" + path_ + "'");
  return Status::success();
}

}  // namespace usdt::report
