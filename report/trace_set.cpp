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
  set->head_time_.assign(set->readers_.size(), 0);
  return set;
}

void TraceSet::set_read_filter(uint32_t file, const format::ReadFilter& filter) {
  if (file < readers_.size() && !primed_) readers_[file].set_filter(filter);
}

namespace {

uint64_t record_time(const format::TraceReader& r) {
  switch (r.kind()) {
    case format::RecordKind::event: return r.event().time_ns;
    case format::RecordKind::process: return r.process().time_ns;
    case format::RecordKind::lost: return r.lost().time_begin_ns;
  }
  return 0;
}

}  // namespace

void TraceSet::advance(size_t i) {
  format::TraceReader& r = readers_[i];
  live_[i] = r.next() ? 1 : 0;
  if (live_[i]) {
    head_time_[i] = record_time(r) + static_cast<uint64_t>(files_[i].shift_ns);
    return;
  }
  files_[i].summary = r.summary();
  files_[i].diagnostics = r.diagnostics();
  files_[i].read_to_end = true;
}

void TraceSet::fill(Record& record, size_t i) const {
  const format::TraceReader& r = readers_[i];
  record.kind = r.kind();
  record.file = static_cast<uint32_t>(i);
  record.time = head_time_[i];
  record.event = nullptr;
  record.process = nullptr;
  record.lost = nullptr;
  switch (record.kind) {
    case format::RecordKind::event: record.event = &r.event(); break;
    case format::RecordKind::process: record.process = &r.process(); break;
    case format::RecordKind::lost: record.lost = &r.lost(); break;
  }
}

bool TraceSet::next(Record& record) {
  if (readers_.size() == 1) {
    // One file: no merge, no head bookkeeping beyond the time.
    primed_ = true;
    advance(0);
    if (!live_[0]) return false;
    fill(record, 0);
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
  fill(record, best);
  return true;
}

}  // namespace usdt::report
