#include "report/trace_set.h"

#include <sys/stat.h>


namespace usdt::report {

namespace {

const char* kind_of_non_regular(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The same recording: one file (same device and inode, also through a
// symlink or a hard link), or a copy of it (same host, command line and
// start anchors, which the recorder takes at one instant): decided by
// content, never by path. Two recordings of one host differ in their starts.
bool same_recording(const struct stat& a, const format::TraceMetadata& ma, const struct stat& b,
                    const format::TraceMetadata& mb) {
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) return true;
  return ma.hostname == mb.hostname && ma.command_line == mb.command_line &&
         ma.start_monotonic_ns == mb.start_monotonic_ns &&
         ma.start_realtime_ns == mb.start_realtime_ns;
}

}  // namespace

Result<struct stat> regular_file_status(const std::string& path) {
  struct stat st{};
  // stat, not open: opening a FIFO without a writer would block.
  if (::stat(path.c_str(), &st) != 0) {
    return errno_error("cannot open '" + path + "'");
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = kind_of_non_regular(st.st_mode);
    return Error("'" + path + "' is " + kind + ", not a trace file");
  }
  return st;
}

Result<std::unique_ptr<TraceSet>> TraceSet::open(const std::vector<std::string>& paths,
                                                 unsigned decode_threads) {
  format::ReaderOptions options;
  options.decode_threads = decode_threads;
  std::unique_ptr<TraceSet> set(new TraceSet());
  std::string last_error;
  std::vector<struct stat> opened;  // per file in files_
  for (const std::string& path : paths) {
    Result<struct stat> st = regular_file_status(path);
    if (!st) {
      last_error = st.error().message();
      set->warnings_.push_back(last_error);
      continue;
    }
    Result<format::TraceReader> reader = format::TraceReader::open(path, options);
    if (!reader) {
      last_error = reader.error().message();
      set->warnings_.push_back(last_error);
      continue;
    }
    bool duplicate = false;
    for (size_t i = 0; i < set->files_.size() && !duplicate; ++i) {
      if (same_recording(opened[i], set->files_[i].metadata, *st, reader->metadata())) {
        set->duplicates_.push_back("'" + path + "' is the same recording as '" + set->files_[i].path +
                                   "': counted once");
        duplicate = true;
      }
    }
    if (duplicate) continue;
    opened.push_back(*st);
    TraceFileInfo info;
    info.path = path;
    info.metadata = reader->metadata();
    info.summary = reader->summary();
    info.objects = reader->objects();
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
