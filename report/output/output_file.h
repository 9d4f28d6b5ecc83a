// Move-only owner of a stdio stream opened for writing (export's -o FILE):
// closed exactly once, by close() (which reports a failed flush) or, on an
// early return, by the destructor.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"

namespace usdt::report {

class OutputFile {
 public:
  // Creates or truncates path (close-on-exec); fails with the errno.
  static Result<OutputFile> create(const std::string& path);

  OutputFile(OutputFile&& other) noexcept
      : file_(std::exchange(other.file_, nullptr)), path_(std::move(other.path_)) {}
  OutputFile& operator=(OutputFile&& other) noexcept {
    if (this != &other) {
      discard();
      file_ = std::exchange(other.file_, nullptr);
      path_ = std::move(other.path_);
    }
    return *this;
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() { discard(); }

  std::FILE* get() const { return file_; }

  // Flushes and closes; fails ("cannot write 'PATH'" and the errno) when
  // the data could not be written, e.g. on a full disk.
  Status close();

 private:
  OutputFile(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  void discard() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }

  std::FILE* file_ = nullptr;
  std::string path_;
};

// Writes text to path (-o FILE) or, when path is empty, to out (standard
// output); fails saying what could not be written.
Status write_output(const std::string& path, std::string_view text, std::FILE* out);

}  // namespace usdt::report
