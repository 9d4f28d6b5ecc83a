#include "report/trace_set.h"

namespace usdt::report {

Result<std::unique_ptr<TraceSet>> TraceSet::open(const std::vector<std::string>& paths) {
  std::unique_ptr<TraceSet> set(new TraceSet());
  std::string last_error;
  for (const std::string& path : paths) {
    Result<format::TraceReader> reader = format::TraceReader::open(path);
    if (!reader) {
      last_error = reader.error().message();
      set->warnings_.push_back(last_error);
      continue;
    }
    TraceFileInfo info;
    info.path = path;
    info.metadata = reader->metadata();
    info.summary = reader->summary();
    set->catalog_.add_file(reader->sites());
    set->files_.push_back(std::move(info));
    set->readers_.push_back(std::move(*reader));
  }
  if (set->readers_.empty()) {
    if (paths.size() == 1) return Error(last_error);
    return Error("none of the " + std::to_string(paths.size()) + " trace files could be read");
  }
  set->compute_timeline();
  set->live_.assign(set->readers_.size(), 0);
  set->heads_.assign(set->readers_.size(), Record{});
  set->head_time_.assign(set->readers_.size(), 0);
  return set;
}

void TraceSet::set_read_filter(uint32_t file, const format::ReadFilter& filter) {
  if (file < readers_.size() && !primed_) readers_[file].set_filter(filter);
}

namespace {

// Points record at the reader's current record (one kind() call, one
// accessor call: they are out-of-line calls into the reader) and returns its
// time on the file's own clock.
uint64_t point_at(const format::TraceReader& r, Record& record) {
  record.kind = r.kind();
  switch (record.kind) {
    case format::RecordKind::event:
      record.event = &r.event();
      return record.event->time_ns;
    case format::RecordKind::process:
      record.process = &r.process();
      return record.process->time_ns;
    case format::RecordKind::lost:
      record.lost = &r.lost();
      return record.lost->time_begin_ns;
  }
  return 0;
}

}  // namespace

void TraceSet::finish_file(size_t i) {
  files_[i].summary = readers_[i].summary();
  files_[i].diagnostics = readers_[i].diagnostics();
  files_[i].read_to_end = true;
}

void TraceSet::advance(size_t i) {
  live_[i] = readers_[i].next() ? 1 : 0;
  if (!live_[i]) {
    finish_file(i);
    return;
  }
  head_time_[i] = point_at(readers_[i], heads_[i]) + static_cast<uint64_t>(files_[i].shift_ns);
  heads_[i].time = head_time_[i];
  heads_[i].file = static_cast<uint32_t>(i);
}

bool TraceSet::next(Record& record) {
  if (readers_.size() == 1) {
    // One file: no merge, no shift (a single host), no copies.
    primed_ = true;
    if (!readers_[0].next()) {
      if (!files_[0].read_to_end) finish_file(0);
      return false;
    }
    record.file = 0;
    record.time = point_at(readers_[0], record);
    return true;
  }
  if (!primed_) {
    primed_ = true;
    for (size_t i = 0; i < readers_.size(); ++i) advance(i);
  } else if (last_ != SIZE_MAX) {
    advance(last_);
  }
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (live_[i] && (best == SIZE_MAX || head_time_[i] < head_time_[best])) best = i;
  }
  last_ = best;
  if (best == SIZE_MAX) return false;
  record = heads_[best];
  return true;
}

}  // namespace usdt::report
