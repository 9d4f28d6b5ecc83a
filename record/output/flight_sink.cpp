#include "record/output/flight_sink.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "record/output/batch_append.h"
#include "record/output/file_metadata.h"
#include "record/output/flight_report.h"

namespace usdt::record {
namespace {

// The encoder's output: every chunk into the ring, nothing else kept (the
// header, metadata and probe table are written anew in each snapshot).
class RingOutput : public format::BlockOutput {
 public:
  explicit RingOutput(FlightSink* sink) : sink_(sink) {}
  Status write(std::string_view) override { return Status::success(); }
  Status write_chunk(std::string_view block, const format::ChunkHeader& header,
                     const format::SiteCounts& counts) override {
    sink_->on_chunk(block, header, counts);
    return Status::success();
  }
  Status close() override { return Status::success(); }
  const std::string& name() const override { return name_; }

 private:
  FlightSink* sink_;
  std::string name_ = "the flight recorder";
};

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

FlightSink::FlightSink(const RecordingFiles& files, const OutputPolicy& policy)
    : files_(files),
      naming_(files.output),
      policy_(policy),
      ring_(policy.flight.bytes, policy.flight.ns),
      fired_(policy.triggers.size(), 0),
      taken_(policy.triggers.size(), 0),
      suppressed_limit_(policy.triggers.size(), 0),
      suppressed_busy_(policy.triggers.size(), 0),
      writer_(files.snapshot_hold) {}

FlightSink::~FlightSink() {
  // The encoder hands its pending chunk to on_chunk as it goes: while the
  // ring and the members on_chunk reaches still live.
  encoder_.reset();
}

Result<std::unique_ptr<FlightSink>> FlightSink::create(const RecordingFiles& files,
                                                       const OutputPolicy& policy) {
  // Nothing is written before the first snapshot: the place must be
  // writable now, not found unwritable an hour later.
  const std::string dir = directory_of(files.output);
  if (::access(dir.c_str(), W_OK) != 0) {
    return errno_error("cannot write snapshots in '" + dir + "'");
  }
  std::unique_ptr<FlightSink> sink(new FlightSink(files, policy));
  Result<format::TraceWriter> encoder = format::TraceWriter::create(
      std::make_unique<RingOutput>(sink.get()), files.metadata, files.sites, files.writer_options);
  if (!encoder) return encoder.error();
  sink->encoder_ = std::move(*encoder);
  if (!policy.triggers.empty()) sink->watch_.emplace(policy.triggers, files.sites);
  return sink;
}

void FlightSink::on_chunk(std::string_view block, const format::ChunkHeader& header,
                          const format::SiteCounts& counts) {
  auto chunk = std::make_shared<RingChunk>();
  chunk->block.assign(block);
  chunk->header = header;
  chunk->counts = counts;
  // The chunk holds the first process records appended since the last one.
  const size_t n = std::min<size_t>(header.process_events, chunk_processes_.size());
  chunk->processes.assign(chunk_processes_.begin(), chunk_processes_.begin() + n);
  chunk_processes_.erase(chunk_processes_.begin(), chunk_processes_.begin() + n);
  ring_.push(std::move(chunk));
}

Status FlightSink::write(const EventBatch& batch) {
  if (failed_) return *failed_;
  if (watch_) {
    if (!batch.added_sites.empty()) watch_->add_sites(batch.added_sites);
    EventBatch::Reader reader(batch);
    format::Event e;
    while (reader.next(e)) watch_->take(e);
  }
  chunk_processes_.insert(chunk_processes_.end(), batch.processes.begin(), batch.processes.end());
  RecordSpan span;
  if (Status s = append_batch(*encoder_, batch, &span); !s) return *(failed_ = s.error());
  if (!span.empty()) newest_ns_ = std::max(newest_ns_, span.max);
  if (!batch.added_sites.empty()) added_.emplace_back(batch.added_sites, batch.added_since_ns);
  for (const OutputRequest& r : batch.requests) {
    if (r.kind != OutputRequest::Kind::snapshot) continue;
    if (Status s = take_snapshot(0, r.at_ns, r.cause, nullptr); !s) return *(failed_ = s.error());
  }
  if (watch_ && batch.drained_through_ns != 0) {
    drained_through_ns_ = std::max(drained_through_ns_, batch.drained_through_ns);
    on_hits(watch_->advance(drained_through_ns_));
  }
  if (Status s = take_due(drained_through_ns_); !s) return *(failed_ = s.error());
  ring_.expire(newest_ns_);
  reap();
  return Status::success();
}

Status FlightSink::tick() {
  if (failed_) return *failed_;
  if (Status s = encoder_->flush(); !s) return *(failed_ = s.error());
  ring_.expire(newest_ns_);
  reap();
  return Status::success();
}

bool FlightSink::pending() const { return encoder_->pending_records() != 0; }

void FlightSink::on_hits(const std::vector<TriggerHit>& hits) {
  for (const TriggerHit& hit : hits) {
    const size_t t = hit.trigger;
    ++fired_[t];
    if (!pending_.empty()) {
      ++suppressed_busy_[t];
      ++suppressed_since_last_;
      continue;
    }
    while (!taken_at_.empty() && taken_at_.front() + policy_.snapshot_period_ns <= hit.time_ns) {
      taken_at_.pop_front();
    }
    if (taken_at_.size() >= policy_.max_snapshots) {
      ++suppressed_limit_[t];
      ++suppressed_since_last_;
      continue;
    }
    taken_at_.push_back(hit.time_ns);
    ++taken_[t];
    Pending p;
    p.hit = hit;
    p.begin = policy_.before_ns ? hit.start_ns - std::min(hit.start_ns, *policy_.before_ns) : 0;
    p.end = hit.time_ns + policy_.after_ns;
    pending_.push_back(p);
  }
}

Status FlightSink::take_due(uint64_t drained_through_ns) {
  while (!pending_.empty() && pending_.front().end < drained_through_ns) {
    const Pending p = pending_.front();
    pending_.pop_front();
    const std::string& text = policy_.triggers[p.hit.trigger].text;
    if (Status s = take_snapshot(p.begin, p.end, text, &p.hit); !s) return s;
  }
  return Status::success();
}

Status FlightSink::take_snapshot(uint64_t begin, uint64_t end, const std::string& trigger,
                                 const TriggerHit* hit) {
  // Everything up to the end is in the ring, not in the encoder.
  if (Status s = encoder_->flush(); !s) return s;
  // What the ring still holds in full: after its horizon, after the start
  // of the recording, within the duration.
  uint64_t lo = std::max({begin, ring_.horizon() + 1, enabled_ns(), uint64_t{1}});
  if (policy_.flight.ns != 0 && end > policy_.flight.ns) lo = std::max(lo, end - policy_.flight.ns);
  // The memory no longer holds any of the window: an empty snapshot (its
  // window ends before it begins), which says so.
  if (end < lo) end = lo - 1;
  format::SeriesInfo series;
  series.role = format::FileRole::snapshot;
  series.recording_id = files_.recording_id;
  series.sequence = ++sequence_;
  series.carried_ns = lo - 1;
  series.window_begin_ns = lo;
  series.window_end_ns = end;
  series.trigger = trigger;
  if (hit != nullptr) {
    series.trigger_site = hit->site;
    series.trigger_time_ns = hit->time_ns;
    series.trigger_pid = hit->pid;
    series.trigger_tid = hit->tid;
    // A latency trigger's start; 0 for a probe trigger (FORMAT.md 3.3.1).
    const bool latency = policy_.triggers[hit->trigger].kind == TriggerSpec::Kind::latency;
    series.trigger_start_ns = latency ? hit->start_ns : 0;
  }
  series.suppressed = suppressed_since_last_;
  suppressed_since_last_ = 0;
  // The names as of the window's start: those of what the ring pushed
  // out, then the held records before the window.
  ThreadNames names = ring_.base_names();
  for (const format::ProcessEvent& p : ring_.held_processes()) {
    if (p.time_ns < lo) names.apply(p);
  }
  names.forget_exited_before(lo - 1);
  SnapshotJob job;
  job.sequence = series.sequence;
  job.path = naming_.path(series.sequence);
  job.partial = naming_.partial_path(series.sequence);
  job.metadata = file_metadata(files_.metadata, series, lo - 1);
  job.sites = files_.sites;
  job.added = added_;
  job.carried = names.carried(lo - 1);
  job.chunks = ring_.take(lo, end);
  job.writer_options = files_.writer_options;
  writer_.add(std::move(job));
  return Status::success();
}

void FlightSink::reap() {
  for (SnapshotDone& done : writer_.take_done()) {
    if (!done.error) {
      kept_.push_back(done.sequence);
      while (policy_.max_files != 0 && kept_.size() > policy_.max_files) {
        const std::string oldest = naming_.path(kept_.front());
        if (::unlink(oldest.c_str()) == 0 || errno == ENOENT) ++deleted_;
        for (SnapshotDone& d : done_) {
          if (d.sequence == kept_.front()) d.deleted = true;
        }
        kept_.pop_front();
      }
    }
    done_.push_back(std::move(done));
  }
}

Status FlightSink::finish(const format::TraceSummary& summary,
                          const std::vector<format::ObjectTable>& objects) {
  (void)objects;  // -g is refused with --flight-recorder (check_output_policy)
  if (failed_) return *failed_;
  if (watch_) on_hits(watch_->advance(UINT64_MAX));
  // Windows still open end with the recording.
  for (Pending& p : pending_) p.end = std::min(p.end, summary.end_monotonic_ns);
  if (Status s = take_due(UINT64_MAX); !s) return *(failed_ = s.error());
  if (policy_.flight.exit_snapshot) {
    if (Status s = take_snapshot(0, summary.end_monotonic_ns, "exit", nullptr); !s) {
      return *(failed_ = s.error());
    }
  }
  writer_.wait();
  reap();
  for (const SnapshotDone& d : done_) {
    if (d.error) return *d.error;
  }
  finished_ = true;
  return Status::success();
}

OutputReport FlightSink::report() const {
  FlightFigures f;
  f.policy = &policy_;
  f.naming = &naming_;
  f.ring = &ring_;
  f.done = &done_;
  f.deleted = deleted_;
  f.fired = &fired_;
  f.taken = &taken_;
  f.suppressed_limit = &suppressed_limit_;
  f.suppressed_busy = &suppressed_busy_;
  f.enabled_ns = enabled_ns();
  f.unmatched = watch_ ? watch_->unmatched() : std::vector<std::string>{};
  OutputReport r = flight_report(f);
  r.complete = finished_;
  return r;
}

}  // namespace usdt::record
