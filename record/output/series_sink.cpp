#include "record/output/series_sink.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/result.h"
#include "record/output/file_metadata.h"

namespace usdt::record {
namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// "x.0003.trace" from "dir/x.0003.trace".
std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<std::unique_ptr<SeriesSink>> SeriesSink::create(const RecordingFiles& files,
                                                       const OutputPolicy& policy) {
  std::unique_ptr<SeriesSink> sink(new SeriesSink(files, policy));
  if (Status s = sink->open_part(0); !s) return s.error();
  return sink;
}

Status SeriesSink::open_part(uint64_t first_record) {
  ++sequence_;
  format::SeriesInfo series;
  series.role = format::FileRole::part;
  series.recording_id = files_.recording_id;
  series.sequence = sequence_;
  const uint64_t now = monotonic_ns();
  uint64_t start = files_.metadata.start_monotonic_ns;
  if (sequence_ > 1) {
    // The carried names come before every record of the part: just before
    // the first one, or the switch, whichever is earlier.
    series.carried_ns = std::min(first_record, now) - 1;
    start = series.carried_ns;
  }
  Result<format::TraceWriter> writer = format::TraceWriter::create(
      naming_.partial_path(sequence_), file_metadata(files_.metadata, series, start), files_.sites,
      files_.writer_options);
  if (!writer) return writer.error();
  part_ = std::move(*writer);
  for (const auto& [sites, since] : added_) {
    if (Status s = part_->add_sites(sites, since); !s) return s;
  }
  if (sequence_ > 1) {
    for (const format::ProcessEvent& p : names_.carried(series.carried_ns)) {
      if (Status s = part_->append(p); !s) return s;
    }
    // Alone in the part's first chunk (FORMAT.md 3.3.1).
    if (Status s = part_->flush(); !s) return s;
  }
  opened_ns_ = sequence_ > 1 ? series.carried_ns : 0;  // part 1: enabled_ns() at its end
  opened_at_ = std::chrono::steady_clock::now();
  span_ = RecordSpan{};
  switch_asked_ = false;
  return Status::success();
}

Status SeriesSink::close_part(const std::vector<std::pair<std::string, uint64_t>>& drops,
                              uint64_t closed_ns) {
  format::TraceSummary summary;
  const uint64_t opened = sequence_ == 1 ? enabled_ns() : opened_ns_;
  summary.enabled_monotonic_ns = span_.empty() ? opened : std::min(opened, span_.min);
  summary.end_monotonic_ns = span_.empty() ? closed_ns : std::max(closed_ns, span_.max);
  if (summary.end_monotonic_ns < summary.enabled_monotonic_ns) {
    summary.end_monotonic_ns = summary.enabled_monotonic_ns;
  }
  if (Status s = part_->flush(); !s) return s;
  summary.events = part_->events_written();
  summary.lost = part_->lost_written();
  summary.events_per_site = part_->events_per_site();
  summary.lost_per_site = part_->lost_per_site();
  summary.dropped = drops;
  if (Status s = part_->finish(summary); !s) return s;
  events_written_ += part_->events_written();
  const uint64_t bytes = part_->bytes_written();
  part_.reset();
  const std::string partial = naming_.partial_path(sequence_);
  if (::rename(partial.c_str(), naming_.path(sequence_).c_str()) != 0) {
    return errno_error("cannot rename '" + partial + "'");
  }
  kept_.emplace_back(sequence_, bytes);
  while (policy_.max_files != 0 && kept_.size() > policy_.max_files) {
    const std::string oldest = naming_.path(kept_.front().first);
    if (::unlink(oldest.c_str()) != 0 && errno != ENOENT) {
      return errno_error("cannot delete '" + oldest + "' (--max-files)");
    }
    kept_.pop_front();
    ++deleted_;
  }
  return Status::success();
}

bool SeriesSink::due() const {
  // A part holds at least one record: no empty files, whatever the size.
  if (!part_ || span_.empty()) return false;
  if (switch_asked_) return true;
  switch (policy_.switch_output.kind) {
    case SwitchKind::size:
      return part_->bytes_written() >= policy_.switch_output.bytes;
    case SwitchKind::time:
      return std::chrono::steady_clock::now() - opened_at_ >=
             std::chrono::nanoseconds(policy_.switch_output.ns);
    case SwitchKind::signal:
    case SwitchKind::none:
      return false;
  }
  return false;
}

Status SeriesSink::write(const EventBatch& batch) {
  if (failed_) return *failed_;
  const bool has_records =
      batch.event_count != 0 || !batch.processes.empty() || !batch.lost.empty();
  if (has_records || !batch.added_sites.empty()) {
    if (part_ && due()) {
      std::vector<std::pair<std::string, uint64_t>> none;
      if (Status s = close_part(none, monotonic_ns()); !s) return *(failed_ = s.error());
    }
    if (!part_) {
      if (Status s = open_part(earliest_record(batch)); !s) return *(failed_ = s.error());
    }
    if (Status s = append_batch(*part_, batch, &span_); !s) return *(failed_ = s.error());
    if (!batch.added_sites.empty()) added_.emplace_back(batch.added_sites, batch.added_since_ns);
    for (const format::ProcessEvent& p : batch.processes) names_.apply(p);
  }
  // For a reader following the part being written (usdt-report top).
  if (part_ && batch.complete_before_ns != 0) part_->note_complete_before(batch.complete_before_ns);
  for (const OutputRequest& r : batch.requests) {
    if (r.kind == OutputRequest::Kind::switch_file) switch_asked_ = true;
  }
  return Status::success();
}

Status SeriesSink::tick() {
  if (failed_) return *failed_;
  if (!part_) return Status::success();
  if (Status s = part_->flush(); !s) return *(failed_ = s.error());
  // Threads that exited before the open part began have no event in it
  // nor in later parts.
  names_.forget_exited_before(opened_ns_);
  return Status::success();
}

bool SeriesSink::pending() const { return part_ && part_->pending_records() != 0; }

Status SeriesSink::finish(const format::TraceSummary& summary,
                          const std::vector<format::ObjectTable>& objects) {
  if (failed_) return *failed_;
  (void)objects;  // -g is refused with --switch-output (check_output_policy)
  if (!part_) {
    if (Status s = open_part(summary.end_monotonic_ns); !s) return *(failed_ = s.error());
  }
  if (Status s = close_part(summary.dropped, summary.end_monotonic_ns); !s) {
    return *(failed_ = s.error());
  }
  finished_ = true;
  return Status::success();
}

OutputReport SeriesSink::report() const {
  OutputReport r;
  for (const auto& [number, bytes] : kept_) r.bytes += bytes;
  r.events_in_files = events_written_ + (part_ ? part_->events_written() : 0);
  const uint32_t written = sequence_;
  if (kept_.empty()) {
    r.description = "in no complete file (" + naming_.pattern() + ")";
  } else if (kept_.size() == 1) {
    r.description = "to " + naming_.path(kept_.front().first);
  } else {
    r.description = "to " + std::to_string(kept_.size()) + " files " +
                    base_name(naming_.path(kept_.front().first)) + " .. " +
                    base_name(naming_.path(kept_.back().first));
  }
  if (deleted_ != 0) {
    r.lines.push_back(std::to_string(written) + " files written, the oldest " +
                      std::to_string(deleted_) + " deleted (--max-files " +
                      std::to_string(policy_.max_files) + ")");
  }
  if (part_ || !finished_) {
    r.complete = false;
    r.lines.push_back(naming_.partial_path(sequence_) + " was not completed: it holds what was " +
                      "written before the error");
  }
  return r;
}

}  // namespace usdt::record
