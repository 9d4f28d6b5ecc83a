#include "report/input/trace_set.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "report/input/trace_paths.h"

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
// Files of a recording that writes several (format 1.7) are the same when
// they are the same part or snapshot of it.
bool same_recording(const struct stat& a, const format::TraceMetadata& ma, const struct stat& b,
                    const format::TraceMetadata& mb) {
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) return true;
  const format::SeriesInfo &sa = ma.series, &sb = mb.series;
  if (!sa.recording_id.empty() || !sb.recording_id.empty()) {
    return sa.recording_id == sb.recording_id && sa.role == sb.role && sa.sequence == sb.sequence;
  }
  return ma.hostname == mb.hostname && ma.command_line == mb.command_line &&
         ma.start_monotonic_ns == mb.start_monotonic_ns &&
         ma.start_realtime_ns == mb.start_realtime_ns;
}

}  // namespace

Result<struct stat> regular_file_status(const std::string& path) {
  struct stat st{};
  // stat, not open: opening a FIFO without a writer would block.
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT && path.find_first_of("*?[") != std::string::npos) {
      return Error("no file matches '" + path + "'");
    }
    return errno_error("cannot open '" + path + "'");
  }
  if (S_ISDIR(st.st_mode)) return Error("'" + path + "' is a directory without trace files (*.trace)");
  if (!S_ISREG(st.st_mode)) {
    const char* kind = kind_of_non_regular(st.st_mode);
    return Error("'" + path + "' is " + kind + ", not a trace file");
  }
  return st;
}

Result<std::unique_ptr<TraceSet>> TraceSet::open(const std::vector<std::string>& args,
                                                 unsigned decode_threads, uint64_t memory_budget) {
  const std::vector<std::string> paths = expand_trace_paths(args);
  format::ReaderOptions options;
  options.decode_threads = decode_threads;
  if (memory_budget != 0) options.memory_budget = memory_budget;
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
    info.object_tables = reader->shared_objects();
    set->catalog_.add_file(reader->sites());
    set->files_.push_back(std::move(info));
    set->readers_.push_back(std::move(*reader));
  }
  if (set->readers_.empty()) {
    if (paths.size() == 1) return Error(last_error);
    return Error("none of the " + std::to_string(paths.size()) + " trace files could be read");
  }
  set->compute_timeline();
  set->read_filters_.assign(set->readers_.size(), format::ReadFilter{});
  set->join_series();
  for (const format::TraceReader& r : set->readers_) set->open_diag_.push_back(r.diagnostics());
  set->live_.assign(set->readers_.size(), 0);
  set->heads_.assign(set->readers_.size(), Record{});
  set->head_time_.assign(set->readers_.size(), 0);
  return set;
}

void TraceSet::set_read_filter(uint32_t file, const format::ReadFilter& filter) {
  if (file < readers_.size() && !primed_) {
    readers_[file].set_filter(within_segment(filter, file));
    read_filters_[file] = filter;
  }
}

namespace {

// A file time on the timeline, when it stays within 64 bits.
std::optional<uint64_t> on_timeline(uint64_t file_time, int64_t shift_ns) {
  __int128 t = static_cast<__int128>(file_time) + shift_ns;
  if (t < 0 || t > static_cast<__int128>(UINT64_MAX)) return std::nullopt;
  return static_cast<uint64_t>(t);
}

// A timeline time on a file's clock, clamped to 64 bits.
uint64_t on_file_clock(uint64_t time, int64_t shift_ns) {
  __int128 t = static_cast<__int128>(time) - shift_ns;
  if (t < 0) return 0;
  if (t > static_cast<__int128>(UINT64_MAX)) return UINT64_MAX;
  return static_cast<uint64_t>(t);
}

}  // namespace

std::vector<uint64_t> TraceSet::segment_bounds(unsigned n) const {
  if (n < 2 || primed_) return {};
  struct Span {
    uint64_t start;
    uint64_t records;
  };
  std::vector<Span> spans;
  uint64_t total = 0;
  for (size_t i = 0; i < readers_.size(); ++i) {
    for (const format::ChunkHeader& h : readers_[i].chunk_headers()) {
      if (h.records() == 0) continue;
      std::optional<uint64_t> start = on_timeline(h.min_time_ns, files_[i].shift_ns);
      // A clock so far off that it wraps: read in one piece, as serially.
      if (!start || !on_timeline(h.max_time_ns, files_[i].shift_ns)) return {};
      spans.push_back(Span{*start, h.records()});
      total += h.records();
    }
  }
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  // Each bound is the start of the chunk at which the records before it
  // reach the next n-th of all.
  std::vector<uint64_t> bounds{0};
  uint64_t before = 0;
  unsigned next = 1;
  for (const Span& sp : spans) {
    if (next < n && before >= total / n * next && sp.start > bounds.back()) {
      bounds.push_back(sp.start);
      while (next < n && before >= total / n * next) ++next;
    }
    before += sp.records;
  }
  if (bounds.size() < 2) return {};
  bounds.push_back(UINT64_MAX);
  return bounds;
}

TraceInput::IndexedRecords TraceSet::indexed_records() const {
  IndexedRecords n;
  for (const format::TraceReader& reader : readers_) {
    for (const format::ChunkHeader& h : reader.chunk_headers()) {
      n.all += h.records();
      if (h.process_events > 0) n.in_process_chunks += h.records();
    }
  }
  return n;
}

std::unique_ptr<TraceInput> TraceSet::open_segment(uint64_t begin, uint64_t end) const {
  if (primed_) return nullptr;
  std::unique_ptr<TraceSet> seg(new TraceSet());
  seg->catalog_ = catalog_;
  seg->files_ = files_;
  seg->timeline_start_ = timeline_start_;
  seg->segment_begin_ = begin;
  seg->segment_end_ = end;
  seg->hosts_differ_ = hosts_differ_;
  seg->read_filters_ = read_filters_;
  seg->open_diag_ = open_diag_;
  seg->skip_carried_ = skip_carried_;
  for (size_t i = 0; i < readers_.size(); ++i) {
    seg->readers_.push_back(readers_[i].fork());
    seg->readers_.back().set_filter(
        seg->within_segment(read_filters_[i], static_cast<uint32_t>(i)));
  }
  seg->live_.assign(seg->readers_.size(), 0);
  seg->heads_.assign(seg->readers_.size(), Record{});
  seg->head_time_.assign(seg->readers_.size(), 0);
  return seg;
}

format::ReadFilter TraceSet::within_segment(format::ReadFilter filter, uint32_t file) const {
  if (file < skip_carried_.size() && skip_carried_[file] != 0) {
    filter.skip_carried_ns = skip_carried_[file];
  }
  // 0 and UINT64_MAX stand for the open ends of the first and last segment.
  if (segment_begin_ != 0) {
    filter.segment_begin_ns = on_file_clock(segment_begin_, files_[file].shift_ns);
  }
  if (segment_end_ != UINT64_MAX) {
    filter.segment_end_ns = on_file_clock(segment_end_, files_[file].shift_ns);
  }
  return filter;
}

void TraceSet::release_reading() {
  readers_.clear();
  readers_.shrink_to_fit();
  heads_ = {};
  live_ = {};
  head_time_ = {};
  for (TraceFileInfo& f : files_) f.object_tables.reset();  // the symbols: only stacks read them
}

void TraceSet::adopt_segments(const std::vector<std::unique_ptr<TraceInput>>& segments) {
  for (size_t i = 0; i < readers_.size(); ++i) {
    const format::ReadDiagnostics& open = open_diag_[i];
    format::ReadDiagnostics d = open;
    // Each segment's reader started from the diagnostics of the open and
    // added those of the chunks it owns: the additions are summed.
    for (const std::unique_ptr<TraceInput>& in : segments) {
      const auto* seg = dynamic_cast<const TraceSet*>(in.get());
      if (seg == nullptr || i >= seg->files_.size()) continue;
      const format::ReadDiagnostics& s = seg->files_[i].diagnostics;
      d.truncated = d.truncated || s.truncated;
      d.chunks_read += s.chunks_read - open.chunks_read;
      d.chunks_bad += s.chunks_bad - open.chunks_bad;
      d.records_skipped += s.records_skipped - open.records_skipped;
      if (s.problems.size() > open.problems.size()) {
        d.problems.insert(d.problems.end(),
                          s.problems.begin() + static_cast<ptrdiff_t>(open.problems.size()),
                          s.problems.end());
      }
      if (seg->files_[i].read_to_end) files_[i].summary = seg->files_[i].summary;
    }
    files_[i].diagnostics = std::move(d);
    files_[i].read_to_end = true;
  }
  adopted_ = true;
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

bool TraceSet::next_record(Record& record) {
  if (adopted_) return false;  // read by its segments
  if (readers_.size() == 1) {
    // One file: no merge, no shift (a single host), no copies; events
    // taken a run at a time where the reader can (most of a trace).
    primed_ = true;
    const format::Event* run = nullptr;
    if (uint32_t n = readers_[0].next_events(&run); n != 0) {
      set_run(run + 1, n - 1, 0);
      record.kind = format::RecordKind::event;
      record.file = 0;
      record.time = run->time_ns;
      record.event = run;
      return true;
    }
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
