// Where a TraceWriter's bytes go: a file (the usual case), or memory that
// keeps the encoded chunks for a later snapshot (the recorder's flight
// recorder). The writer hands every byte of the file in order; a chunk's
// block comes whole, with its header and how many events and lost events of
// each site it holds, so that a chunk kept in memory can be written into
// another file of the same recording later (TraceWriter::append_chunk_block).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "formats/file_layout.h"

namespace usdt::format {

// The events and lost events of each site in one chunk: (site id, count)
// for the sites it holds any of.
struct SiteCounts {
  std::vector<std::pair<uint32_t, uint64_t>> events;
  std::vector<std::pair<uint32_t, uint64_t>> lost;
};

class BlockOutput {
 public:
  virtual ~BlockOutput() = default;
  // The file header, a block other than a chunk, or the trailer.
  virtual Status write(std::string_view bytes) = 0;
  // A whole chunk block (frame, header, compressed body).
  virtual Status write_chunk(std::string_view block, const ChunkHeader& header,
                             const SiteCounts& counts) {
    (void)header;
    (void)counts;
    return write(block);
  }
  // After the trailer.
  virtual Status close() = 0;
  // What messages call the output (a file's path).
  virtual const std::string& name() const = 0;
};

// A file, created (truncated) by open().
class FileOutput : public BlockOutput {
 public:
  static Result<std::unique_ptr<FileOutput>> open(const std::string& path);
  Status write(std::string_view bytes) override;
  Status close() override;
  const std::string& name() const override { return path_; }

 private:
  FileOutput(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  UniqueFd fd_;
};

}  // namespace usdt::format
