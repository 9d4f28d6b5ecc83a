#include "record/output/snapshot_writer.h"

#include <stdio.h>

#include <algorithm>

#include "formats/chunk_codec.h"
#include "formats/zstd_codec.h"

namespace usdt::record {
namespace {

// What a decoder needs of the sites: argument counts and string masks.
struct SiteShapes {
  std::vector<uint8_t> arg_counts;
  std::vector<uint16_t> string_masks;
  void add(const std::vector<format::ProbeSite>& sites) {
    for (const format::ProbeSite& site : sites) {
      arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
      uint16_t mask = 0;
      for (size_t a = 0; a < site.args.size(); ++a) {
        if (site.args[a].is_string) mask = static_cast<uint16_t>(mask | (1u << a));
      }
      string_masks.push_back(mask);
    }
  }
};

// The records of a chunk that lie in [begin, end], appended one by one
// (encoded again into a chunk of their own).
Status copy_window(format::TraceWriter& writer, const RingChunk& chunk, const SiteShapes& shapes,
                   uint64_t begin, uint64_t end) {
  format::ByteCursor in(chunk.block);
  const format::BlockHeader frame = format::decode_block_header(in);
  const std::string_view body =
      std::string_view(chunk.block).substr(format::kBlockHeaderSize + frame.header_size);
  std::string payload;
  format::ZstdDecompressor zstd;
  if (Status s = zstd.decompress(body, format::kMaxChunkPayload, payload); !s) {
    return s.error().context("cannot read a chunk of the flight recorder");
  }
  // No frame taken apart: a function probe's stack pointer stays its last
  // argument, as the writer takes it.
  format::ChunkDecoder d(std::move(payload), &shapes.arg_counts, &shapes.string_masks, nullptr);
  if (!d.start(chunk.header)) {
    return Error("cannot read a chunk of the flight recorder: " + d.error());
  }
  while (d.has_next()) {
    d.advance();
    Status s;
    switch (d.kind()) {
      case format::RecordKind::event:
        if (d.event().time_ns >= begin && d.event().time_ns <= end) s = writer.append(d.event());
        break;
      case format::RecordKind::process:
        if (d.process().time_ns >= begin && d.process().time_ns <= end) {
          s = writer.append(d.process());
        }
        break;
      case format::RecordKind::lost:
        if (d.lost().time_begin_ns >= begin && d.lost().time_begin_ns <= end) {
          s = writer.append(d.lost());
        }
        break;
    }
    if (!s) return s;
  }
  if (d.failed()) return Error("cannot read a chunk of the flight recorder: " + d.error());
  return writer.flush();
}

Status write_chunks(format::TraceWriter& writer, const SnapshotJob& job) {
  const uint64_t begin = job.metadata.series.window_begin_ns;
  const uint64_t end = job.metadata.series.window_end_ns;
  SiteShapes shapes;
  shapes.add(job.sites);
  for (const auto& [sites, since] : job.added) shapes.add(sites);
  for (const std::shared_ptr<const RingChunk>& chunk : job.chunks) {
    const format::ChunkHeader& h = chunk->header;
    Status s = h.min_time_ns >= begin && h.max_time_ns <= end
                   ? writer.append_chunk_block(chunk->block, h, chunk->counts)
                   : copy_window(writer, *chunk, shapes, begin, end);
    if (!s) return s;
  }
  return Status::success();
}

}  // namespace

SnapshotDone write_snapshot(const SnapshotJob& job, const std::function<void()>& hold_after_start) {
  SnapshotDone done;
  done.sequence = job.sequence;
  done.path = job.path;
  done.trigger = job.metadata.series.trigger;
  done.window_begin_ns = job.metadata.series.window_begin_ns;
  done.window_end_ns = job.metadata.series.window_end_ns;
  Result<format::TraceWriter> created =
      format::TraceWriter::create(job.partial, job.metadata, job.sites, job.writer_options);
  if (!created) {
    done.error = created.error();
    return done;
  }
  format::TraceWriter& writer = *created;
  Status s;
  for (const auto& [sites, since] : job.added) {
    if (s = writer.add_sites(sites, since); !s) break;
  }
  for (const format::ProcessEvent& p : job.carried) {
    if (!s) break;
    s = writer.append(p);
  }
  if (s) s = writer.flush();  // the carried names alone in the first chunk
  if (s && hold_after_start) hold_after_start();
  if (s) s = write_chunks(writer, job);
  if (s) {
    format::TraceSummary summary;
    summary.enabled_monotonic_ns = job.metadata.series.window_begin_ns;
    // An empty window (the memory no longer held it) spans nothing.
    summary.end_monotonic_ns =
        std::max(job.metadata.series.window_end_ns, job.metadata.series.window_begin_ns);
    summary.events = writer.events_written();
    summary.lost = writer.lost_written();
    summary.events_per_site = writer.events_per_site();
    summary.lost_per_site = writer.lost_per_site();
    s = writer.finish(summary);
  }
  if (s && ::rename(job.partial.c_str(), job.path.c_str()) != 0) {
    s = errno_error("cannot rename '" + job.partial + "'");
  }
  done.events = writer.events_written();
  done.bytes = writer.bytes_written();
  if (!s) done.error = s.error().context("snapshot " + job.path);
  return done;
}

SnapshotWriter::~SnapshotWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SnapshotWriter::add(SnapshotJob job) {
  std::lock_guard lock(mutex_);
  jobs_.push_back(std::move(job));
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  wake_.notify_one();
}

void SnapshotWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, nothing left
    SnapshotJob job = std::move(jobs_.front());
    jobs_.pop_front();
    ++writing_;
    lock.unlock();
    SnapshotDone done;
    try {
      done = write_snapshot(job, hold_);
    } catch (const std::exception& e) {
      done.sequence = job.sequence;
      done.path = job.path;
      done.error =
          Error(std::string("internal error writing snapshot ") + job.path + ": " + e.what());
    }
    job = SnapshotJob();  // lets go of its chunks before waiting again
    lock.lock();
    --writing_;
    done_.push_back(std::move(done));
    idle_.notify_all();
  }
}

std::vector<SnapshotDone> SnapshotWriter::take_done() {
  std::lock_guard lock(mutex_);
  std::vector<SnapshotDone> out;
  out.swap(done_);
  return out;
}

void SnapshotWriter::wait() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return jobs_.empty() && writing_ == 0; });
}

size_t SnapshotWriter::busy() {
  std::lock_guard lock(mutex_);
  return jobs_.size() + writing_;
}

}  // namespace usdt::record
