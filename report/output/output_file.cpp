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

Status write_output(const std::string& path, std::string_view text, std::FILE* out) {
  if (path.empty()) {
    if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) {
      return Error("cannot write the output (disk full or closed pipe?)");
    }
    return Status::success();
  }
  Result<OutputFile> file = OutputFile::create(path);
  if (!file) return file.error();
  if (std::fwrite(text.data(), 1, text.size(), file->get()) != text.size()) {
    return errno_error("cannot write '" + path + "'");
  }
  return file->close();
}

}  // namespace usdt::report
