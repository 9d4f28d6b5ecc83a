#include "report/input/live_trace.h"

#include <algorithm>

namespace usdt::report {

namespace {

// The order of FORMAT.md section 4 among records of one time.
uint8_t rank_of(format::RecordKind kind) {
  switch (kind) {
    case format::RecordKind::process:
      return 0;
    case format::RecordKind::event:
      return 1;
    case format::RecordKind::lost:
      return 2;
  }
  return 1;
}

}  // namespace

Result<std::unique_ptr<LiveTrace>> LiveTrace::open(const std::string& path) {
  Result<format::TraceFollower> follower = format::TraceFollower::open(path);
  if (!follower) return follower.error();
  std::unique_ptr<LiveTrace> live(new LiveTrace(std::move(*follower)));
  TraceFileInfo info;
  info.path = path;
  info.metadata = live->follower_.metadata();
  live->files_.push_back(std::move(info));
  live->catalog_.add_file(live->follower_.sites());
  live->sites_known_ = live->follower_.sites().size();
  live->compute_timeline();
  // What is written already, so that the catalog holds the sites added
  // before now: a reader compiled against it sees no change at its first poll.
  Result<bool> first = live->poll();
  if (!first) return first.error();
  return live;
}

bool LiveTrace::advance(Source& s) {
  s.has_head = s.chunks.next();
  if (!s.has_head) return false;
  const format::RecordKind kind = s.chunks.kind();
  s.head_rank = rank_of(kind);
  switch (kind) {
    case format::RecordKind::event:
      s.head_time = s.chunks.event().time_ns;
      break;
    case format::RecordKind::process:
      s.head_time = s.chunks.process().time_ns;
      break;
    case format::RecordKind::lost:
      s.head_time = s.chunks.lost().time_begin_ns;
      break;
  }
  return true;
}

Result<bool> LiveTrace::poll() {
  const bool was_ended = ended();
  const uint64_t progress_before =
      follower_.progress() ? follower_.progress()->complete_before_ns : 0;
  Result<format::FollowedChunks> chunks = follower_.look();
  if (!chunks) return chunks.error();
  take_added_sites();
  const bool new_chunks = chunks->chunk_count() != 0;
  if (new_chunks) {
    Source s;
    s.chunks = std::move(*chunks);
    s.seq = next_seq_++;
    if (advance(s)) sources_.push_back(std::move(s));
  }
  if (ended()) {
    bound_ = UINT64_MAX;
  } else if (!ordered()) {
    bound_ = UINT64_MAX;  // as flushed: nothing is held back
  } else if (follower_.progress()) {
    bound_ = std::max(bound_, follower_.progress()->complete_before_ns);
  }
  if (ended() && !was_ended) finish_file();
  const uint64_t progress_now = follower_.progress() ? follower_.progress()->complete_before_ns : 0;
  return new_chunks || progress_now != progress_before || ended() != was_ended;
}

void LiveTrace::take_added_sites() {
  const std::vector<format::ProbeSite>& sites = follower_.sites();
  if (sites.size() == sites_known_) return;
  std::vector<format::ProbeSite> added(sites.begin() + static_cast<std::ptrdiff_t>(sites_known_),
                                       sites.end());
  catalog_.add_sites_to_last_file(added);
  sites_known_ = sites.size();
  ++sites_version_;
}

void LiveTrace::finish_file() {
  TraceFileInfo& f = files_.front();
  f.summary = follower_.summary();
  f.diagnostics = follower_.diagnostics();
}

LiveTrace::Source* LiveTrace::first_source() {
  Source* best = nullptr;
  for (Source& s : sources_) {
    if (!s.has_head) continue;
    if (best == nullptr || s.head_time < best->head_time ||
        (s.head_time == best->head_time &&
         (s.head_rank < best->head_rank ||
          (s.head_rank == best->head_rank && s.seq < best->seq)))) {
      best = &s;
    }
  }
  return best;
}

bool LiveTrace::next_record(Record& record) {
  if (current_ != nullptr) {
    advance(*current_);
    current_ = nullptr;
    // A source read to its end goes, with the chunks it held.
    sources_.erase(std::remove_if(sources_.begin(), sources_.end(),
                                  [](const Source& s) { return !s.has_head; }),
                   sources_.end());
  }
  Source* s = first_source();
  if (s == nullptr || s->head_time >= bound_) {  // complete only below the bound: later
    delivered_below_ = bound_;
    if (s == nullptr && ended()) {
      files_.front().read_to_end = true;
      files_.front().diagnostics = follower_.diagnostics();
    }
    return false;
  }
  record.file = 0;
  record.time = s->head_time;
  record.kind = s->chunks.kind();
  switch (record.kind) {
    case format::RecordKind::event:
      record.event = &s->chunks.event();
      if (ordered() && record.time < delivered_below_) ++late_events_;
      break;
    case format::RecordKind::process:
      record.process = &s->chunks.process();
      break;
    case format::RecordKind::lost:
      record.lost = &s->chunks.lost();
      break;
  }
  current_ = s;
  return true;
}

}  // namespace usdt::report
