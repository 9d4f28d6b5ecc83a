// Where a trace reader's bytes come from: a file read with pread, or a buffer
// in memory (the fuzzer, tests). Reads are exact: a short read is an error.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>

#include "common/result.h"
#include "common/unique_fd.h"

namespace usdt::format {

// No mmap: a file that shrinks under the reader must give an error, not SIGBUS.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly size bytes at offset into out, or fails.
  virtual Status read(uint64_t offset, uint64_t size, std::string& out) = 0;
};

class FileSource : public ByteSource {
 public:
  FileSource(UniqueFd fd, uint64_t size) : fd_(std::move(fd)), size_(size) {}
  uint64_t size() const override { return size_; }
  // A file being written (trace_follower.h): takes its size as it is now.
  // Not while another thread reads. Fails when the file shrank.
  Status refresh_size() {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) return errno_error("cannot stat the file");
    if (static_cast<uint64_t>(st.st_size) < size_) return Error("the file shrank");
    size_ = static_cast<uint64_t>(st.st_size);
    return Status::success();
  }
  Status read(uint64_t offset, uint64_t size, std::string& out) override {
    if (offset > size_ || size > size_ - offset) return Error("read past the end of the file");
    out.resize(size);
    uint64_t done = 0;
    while (done < size) {
      ssize_t n =
          ::pread(fd_.get(), out.data() + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error("read failed at offset " + std::to_string(offset + done));
      if (n == 0) return Error("file shrank while reading at offset " + std::to_string(offset));
      done += static_cast<uint64_t>(n);
    }
    return Status::success();
  }

 private:
  UniqueFd fd_;
  uint64_t size_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  Status read(uint64_t offset, uint64_t size, std::string& out) override {
    if (offset > bytes_.size() || size > bytes_.size() - offset) {
      return Error("read past the end of the file");
    }
    out.assign(bytes_, offset, size);
    return Status::success();
  }

 private:
  std::string bytes_;
};

}  // namespace usdt::format
