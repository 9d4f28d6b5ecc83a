#include "formats/trace_writer.h"

#include <algorithm>

#include "formats/trace_writer_impl.h"

namespace usdt::format {

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceWriter::TraceWriter(TraceWriter&&) noexcept = default;
TraceWriter& TraceWriter::operator=(TraceWriter&&) noexcept = default;

TraceWriter::~TraceWriter() {
  // Best effort: a writer dropped without finish() (an error path in the
  // caller) still leaves its buffered records readable, without a footer.
  if (impl_ && !impl_->finished && !impl_->failed) (void)impl_->flush();
}

Result<TraceWriter> TraceWriter::create(const std::string& path, const TraceMetadata& metadata,
                                        const std::vector<ProbeSite>& sites,
                                        WriterOptions options) {
  if (std::string bad = bad_sites(sites, 0, 0); !bad.empty()) {
    return Error("cannot create '" + path + "': " + bad);
  }
  Result<std::unique_ptr<FileOutput>> out = FileOutput::open(path);
  if (!out) return out.error();
  return create(std::move(*out), metadata, sites, options);
}

Result<TraceWriter> TraceWriter::create(std::unique_ptr<BlockOutput> output,
                                        const TraceMetadata& metadata,
                                        const std::vector<ProbeSite>& sites,
                                        WriterOptions options) {
  const std::string path = output->name();
  if (std::string bad = bad_sites(sites, 0, 0); !bad.empty()) {
    return Error("cannot create '" + path + "': " + bad);
  }
  options.chunk_bytes = std::clamp<size_t>(options.chunk_bytes, 1, kMaxChunkBytes);
  auto zstd = ZstdCompressor::create(options.zstd_level);
  if (!zstd) return zstd.error().context("cannot create '" + path + "'");
  auto impl = std::make_unique<Impl>(std::move(*zstd));
  impl->path = path;
  impl->out = std::move(output);
  impl->options = options;
  for (const ProbeSite& site : sites) {
    impl->site_arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
    impl->site_string_masks.push_back(string_mask_of(site));
  }
  impl->tally.add_sites(sites.size());
  impl->table_sites = sites.size();

  std::string header;
  encode_file_header(header);
  if (Status s = impl->put(header); !s) return s.error();
  std::string body;
  encode_metadata(body, metadata);
  if (Status s = impl->write_block(BlockKind::metadata, {}, body); !s) return s.error();
  body.clear();
  encode_probe_table(body, sites);
  if (Status s = impl->write_block(BlockKind::probe_table, {}, body); !s) return s.error();
  if (!impl->room_for(0, 0)) {
    return Error("cannot create '" + path + "': " + std::to_string(options.max_bytes) +
                 " bytes leave no room for a chunk and the end of the file");
  }
  return TraceWriter(std::move(impl));
}

Status TraceWriter::append(const Event& event) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (event.site_id >= w.site_arg_counts.size()) {
    return Error("cannot write an event of probe site " + std::to_string(event.site_id) +
                 ": the probe table has " + std::to_string(w.site_arg_counts.size()) + " sites");
  }
  if (event.arg_count > w.site_arg_counts[event.site_id]) {
    return Error("cannot write an event with " + std::to_string(event.arg_count) +
                 " arguments: probe site " + std::to_string(event.site_id) + " has " +
                 std::to_string(w.site_arg_counts[event.site_id]));
  }
  if (!w.strings_agree(event)) {
    return Error("cannot write an event of probe site " + std::to_string(event.site_id) +
                 ": its string arguments (mask 0x" + to_hex(event.string_mask) +
                 ") are not those of the site (mask 0x" +
                 to_hex(w.site_string_masks[event.site_id]) + ")");
  }
  if (w.full) {
    ++w.events_refused;
    return Status::success();
  }
  w.builder.add(event);
  w.tally.count_event(event.site_id);
  return w.after_append();
}

Status TraceWriter::append_events(const std::vector<Event>& events) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  const size_t sites = w.site_arg_counts.size();
  for (const Event& event : events) {
    if (event.site_id >= sites || event.arg_count > w.site_arg_counts[event.site_id] ||
        !w.strings_agree(event)) {
      return append(event);  // the per-event path words the error
    }
    if (w.full) {
      ++w.events_refused;
      continue;
    }
    w.builder.add(event);
    w.tally.count_event(event.site_id);
    if (Status s = w.after_append(); !s) return s;
  }
  return Status::success();
}

Status TraceWriter::append(const ProcessEvent& event) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (w.full) return Status::success();
  w.builder.add(event);
  return w.after_append();
}

Status TraceWriter::append(const LostEvent& event) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (event.site_id != kNoSite && event.site_id >= w.site_arg_counts.size()) {
    return Error("cannot write lost events of probe site " + std::to_string(event.site_id) +
                 ": the probe table has " + std::to_string(w.site_arg_counts.size()) + " sites");
  }
  if (w.full) return Status::success();
  w.builder.add(event);
  w.tally.count_lost(event.site_id, event.count);
  return w.after_append();
}

void TraceWriter::note_complete_before(uint64_t complete_before_ns) {
  impl_->complete_before_noted = std::max(impl_->complete_before_noted, complete_before_ns);
}

Status TraceWriter::flush() {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (Status s = w.flush(); !s) return s;
  if (w.complete_before_noted <= w.complete_before_written) return Status::success();
  // A file at its size limit keeps its room for the end.
  if (w.full || !w.room_for(kBlockHeaderSize + 64, 0)) return Status::success();
  Progress progress;
  progress.complete_before_ns = w.complete_before_noted;
  progress.next_within_ns = uint64_t{w.options.flush_interval_ms} * 1000000u;
  std::string body;
  encode_progress(body, progress);
  if (Status s = w.write_block(BlockKind::progress, {}, body); !s) return s;
  w.complete_before_written = progress.complete_before_ns;
  return Status::success();
}

}  // namespace usdt::format
