// The usual output: one trace file, written as the recording goes. With
// --max-size the file stays within the size: the writer refuses the chunk
// that would leave no room for the end of the file (format::WriterOptions::
// max_bytes), full() then stops the recording, and the events that did not
// fit are counted as dropped ("max_size") in the file's summary.
#pragma once

#include <string>

#include "formats/trace_writer.h"
#include "record/output/trace_sink.h"

namespace usdt::record {

class FileSink : public TraceSink {
 public:
  FileSink(format::TraceWriter writer, std::string path, uint64_t max_size)
      : writer_(std::move(writer)), path_(std::move(path)), max_size_(max_size) {}

  Status write(const EventBatch& batch) override;
  Status tick() override { return writer_.flush(); }
  bool pending() const override { return writer_.pending_records() != 0; }
  bool full() const override { return writer_.full(); }
  Status finish(const format::TraceSummary& summary,
                const std::vector<format::ObjectTable>& objects) override;
  bool finished() const override { return finished_; }
  OutputReport report() const override;
  std::string created_path() const override { return path_; }

 private:
  format::TraceWriter writer_;
  std::string path_;
  uint64_t max_size_ = 0;
  bool finished_ = false;
  std::vector<std::string> objects_left_out_;
};

}  // namespace usdt::record
