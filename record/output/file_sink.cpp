#include "record/output/file_sink.h"

#include "record/output/batch_append.h"

namespace usdt::record {

Status FileSink::write(const EventBatch& batch) {
  if (Status s = append_batch(writer_, batch, nullptr); !s) return s;
  // After its records: what the next flush may tell a reader that follows.
  if (batch.complete_before_ns != 0) writer_.note_complete_before(batch.complete_before_ns);
  return Status::success();
}

Status FileSink::finish(const format::TraceSummary& summary,
                        const std::vector<format::ObjectTable>& objects) {
  for (const format::ObjectTable& object : objects) {
    Status s = writer_.add_object(object);
    if (s) continue;
    // Only the size limit refuses an object without failing the file.
    if (max_size_ == 0 || writer_.full()) return s;
    objects_left_out_.push_back(object.path);
  }
  if (Status s = writer_.flush(); !s) return s;
  // The file's own counts: those of the events that reached it.
  format::TraceSummary mine = summary;
  mine.events = writer_.events_written();
  mine.lost = writer_.lost_written();
  mine.events_per_site = writer_.events_per_site();
  mine.lost_per_site = writer_.lost_per_site();
  if (max_size_ != 0) mine.dropped.emplace_back("max_size", writer_.events_refused());
  if (Status s = writer_.finish(mine); !s) return s;
  finished_ = true;
  return Status::success();
}

OutputReport FileSink::report() const {
  OutputReport r;
  r.description = "to " + path_;
  r.bytes = writer_.bytes_written();
  r.events_in_files = writer_.events_written();
  r.complete = finished_;
  if (writer_.full()) {
    r.lines.push_back("stopped at --max-size " + std::to_string(max_size_) +
                      " bytes: " + std::to_string(writer_.events_refused()) +
                      " events did not fit (counted as dropped, max_size)");
  }
  if (!objects_left_out_.empty()) {
    r.lines.push_back("no room within --max-size for the symbols of " +
                      std::to_string(objects_left_out_.size()) +
                      " files in stacks: their frames are shown as FILE+0xOFFSET");
  }
  return r;
}

}  // namespace usdt::record
