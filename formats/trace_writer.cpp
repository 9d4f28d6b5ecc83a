#include "formats/trace_writer.h"

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "common/file_io.h"
#include "common/unique_fd.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/table_codec.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

namespace {

// Limits that keep every chunk well inside what readers accept
// (kMaxChunkPayload): the estimate undercounts a worst-case event by at most
// about 30 bytes, so 8 MiB of estimate and 1 Mi records stay below 64 MiB.
constexpr size_t kMaxChunkBytes = 8u << 20;
constexpr uint64_t kMaxWriterChunkRecords = 1u << 20;

std::string to_hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", v);
  return buf;
}

// Why sites, whose ids must start at first_id, cannot be written after
// sites_before others; empty when they can.
std::string bad_sites(const std::vector<ProbeSite>& sites, uint32_t first_id,
                      size_t sites_before) {
  if (sites.size() > kMaxSites - sites_before) {
    return std::to_string(sites_before + sites.size()) +
           " probe sites exceed the format's limit of " + std::to_string(kMaxSites);
  }
  for (size_t i = 0; i < sites.size(); ++i) {
    const uint64_t expected = uint64_t{first_id} + i;
    if (sites[i].id != expected) {
      return "probe site " + std::to_string(expected) + " has id " + std::to_string(sites[i].id) +
             " (ids must be " + std::to_string(first_id) + ".." +
             std::to_string(first_id + sites.size() - 1) + " in order)";
    }
    if (sites[i].args.size() > static_cast<size_t>(kMaxArgs)) {
      return "probe site " + std::to_string(expected) + " has " +
             std::to_string(sites[i].args.size()) + " arguments (at most " +
             std::to_string(kMaxArgs) + ")";
    }
  }
  return {};
}

// Bit i: argument i of the site is a string.
uint16_t string_mask_of(const ProbeSite& site) {
  uint16_t strings = 0;
  for (size_t a = 0; a < site.args.size(); ++a) {
    if (site.args[a].is_string) strings = static_cast<uint16_t>(strings | (1u << a));
  }
  return strings;
}

}  // namespace

struct TraceWriter::Impl {
  std::string path;
  UniqueFd fd;
  WriterOptions options;
  ZstdCompressor zstd;
  ChunkBuilder builder;
  ChunkIndex index;
  std::vector<uint8_t> site_arg_counts;     // by site id, added sites too
  std::vector<uint16_t> site_string_masks;  // bit i: argument i is a string
  size_t table_sites = 0;                   // sites of the probe table (not added ones)
  std::string payload, frame, block;
  uint64_t offset = 0;
  uint64_t events_written = 0;
  std::optional<Error> failed;  // sticky: the first write error
  bool finished = false;
  uint64_t complete_before_noted = 0;    // note_complete_before()
  uint64_t complete_before_written = 0;  // in the last progress block

  // Whether the event's string arguments (below its arg_count) are those its
  // site's descriptors say; the caller checked site_id and arg_count.
  bool strings_agree(const Event& event) const {
    uint32_t below_count = (1u << event.arg_count) - 1;
    return ((event.string_mask ^ site_string_masks[event.site_id]) & below_count) == 0;
  }
  std::chrono::steady_clock::time_point chunk_started;  // first append of the pending chunk

  explicit Impl(ZstdCompressor z) : zstd(std::move(z)) {}

  Status fail(Error error) {
    if (!failed) failed = std::move(error);
    return *failed;
  }

  // Writes one block: frame, the kind's fixed header, body compressed.
  Status write_block(BlockKind kind, std::string_view kind_header, std::string_view body) {
    if (failed) return *failed;
    Status s = zstd.compress(body, frame);
    if (!s) return fail(s.error().context("cannot write '" + path + "'"));
    BlockHeader h;
    h.kind = static_cast<uint16_t>(kind);
    h.header_size = static_cast<uint16_t>(kind_header.size());
    h.body_size = frame.size();
    block.clear();
    encode_block_header(block, h);
    block.append(kind_header);
    block.append(frame);
    s = write_all(fd.get(), block.data(), block.size());
    if (!s) {
      return fail(
          s.error().context("cannot write '" + path + "' at offset " + std::to_string(offset)));
    }
    offset += block.size();
    return Status::success();
  }

  Status flush() {
    if (failed) return *failed;
    if (builder.empty()) return Status::success();
    ChunkHeader header = builder.encode(payload);
    std::string kind_header;
    encode_chunk_header(kind_header, header);
    uint64_t at = offset;
    Status s = write_block(BlockKind::chunk, kind_header, payload);
    if (!s) return s;
    index.chunks.push_back(IndexEntry{at, offset - at, header});
    events_written += header.events;
    return Status::success();
  }

  Status after_append() {
    if (builder.estimated_size() >= options.chunk_bytes ||
        builder.records() >= kMaxWriterChunkRecords) {
      return flush();
    }
    if (options.flush_interval_ms == 0) return Status::success();
    // Reading the clock costs more than an append: look every 256 records.
    if (builder.records() == 1) {
      chunk_started = std::chrono::steady_clock::now();
    } else if ((builder.records() & 255) == 0 &&
               std::chrono::steady_clock::now() - chunk_started >=
                   std::chrono::milliseconds(options.flush_interval_ms)) {
      return flush();
    }
    return Status::success();
  }

  Status usable() const {
    if (failed) return *failed;
    if (finished) return Error("cannot write to '" + path + "': the trace is already finished");
    return Status::success();
  }
};

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
  std::vector<uint8_t> arg_counts;
  std::vector<uint16_t> string_masks;
  for (const ProbeSite& site : sites) {
    arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
    string_masks.push_back(string_mask_of(site));
  }
  options.chunk_bytes = std::clamp<size_t>(options.chunk_bytes, 1, kMaxChunkBytes);
  auto zstd = ZstdCompressor::create(options.zstd_level);
  if (!zstd) return zstd.error().context("cannot create '" + path + "'");
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();

  auto impl = std::make_unique<Impl>(std::move(*zstd));
  impl->path = path;
  impl->fd = std::move(*fd);
  impl->options = options;
  impl->site_arg_counts = std::move(arg_counts);
  impl->site_string_masks = std::move(string_masks);
  impl->table_sites = sites.size();

  std::string header;
  encode_file_header(header);
  Status s = write_all(impl->fd.get(), header.data(), header.size());
  if (!s) return s.error().context("cannot write '" + path + "'");
  impl->offset = header.size();
  std::string body;
  encode_metadata(body, metadata);
  s = impl->write_block(BlockKind::metadata, {}, body);
  if (!s) return s.error();
  body.clear();
  encode_probe_table(body, sites);
  s = impl->write_block(BlockKind::probe_table, {}, body);
  if (!s) return s.error();
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
  w.builder.add(event);
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
    w.builder.add(event);
    if (Status s = w.after_append(); !s) return s;
  }
  return Status::success();
}

Status TraceWriter::append(const ProcessEvent& event) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  w.builder.add(event);
  return w.after_append();
}

// The object block goes out now, while the chunk that will hold stacks in
// this object is still buffered: a reader then finds the block before the
// chunk (FORMAT.md 3.6a), and a recording cut short keeps both or neither.
Status TraceWriter::add_object(const ObjectTable& object) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (object.symbols.size() > kMaxObjectSymbols) {
    return Error("cannot write the symbols of '" + object.path +
                 "': " + std::to_string(object.symbols.size()) +
                 " symbols exceed the format's limit of " + std::to_string(kMaxObjectSymbols));
  }
  std::string body;
  encode_object(body, object);
  if (body.size() > kMaxTablePayload) {
    return Error("cannot write the symbols of '" + object.path +
                 "': " + std::to_string(body.size()) + " bytes exceed the format's limit of " +
                 std::to_string(kMaxTablePayload));
  }
  uint64_t at = w.offset;
  if (Status s = w.write_block(BlockKind::object, {}, body); !s) return s;
  w.index.objects.push_back(at);
  return Status::success();
}

// Like add_object: the block goes out now, before the chunk still buffered,
// so every chunk that can hold events of these sites follows it (FORMAT.md
// 3.4.2), and a recording cut short keeps the block with its chunks.
Status TraceWriter::add_sites(const std::vector<ProbeSite>& sites, uint64_t active_since_ns) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (sites.empty()) return Status::success();
  const size_t known = w.site_arg_counts.size();
  if (std::string bad = bad_sites(sites, static_cast<uint32_t>(known), known); !bad.empty()) {
    return Error("cannot add probe sites to '" + w.path + "': " + bad);
  }
  std::string body;
  encode_added_sites(body, sites, active_since_ns);
  if (body.size() > kMaxTablePayload) {
    return Error("cannot add probe sites to '" + w.path + "': " + std::to_string(body.size()) +
                 " bytes exceed the format's limit of " + std::to_string(kMaxTablePayload));
  }
  uint64_t at = w.offset;
  if (Status s = w.write_block(BlockKind::added_sites, {}, body); !s) return s;
  w.index.added_sites.push_back(at);
  for (const ProbeSite& site : sites) {
    w.site_arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
    w.site_string_masks.push_back(string_mask_of(site));
  }
  return Status::success();
}

Status TraceWriter::append(const LostEvent& event) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (event.site_id != kNoSite && event.site_id >= w.site_arg_counts.size()) {
    return Error("cannot write lost events of probe site " + std::to_string(event.site_id) +
                 ": the probe table has " + std::to_string(w.site_arg_counts.size()) + " sites");
  }
  w.builder.add(event);
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
  Progress progress;
  progress.complete_before_ns = w.complete_before_noted;
  progress.next_within_ns = uint64_t{w.options.flush_interval_ms} * 1000000u;
  std::string body;
  encode_progress(body, progress);
  if (Status s = w.write_block(BlockKind::progress, {}, body); !s) return s;
  w.complete_before_written = progress.complete_before_ns;
  return Status::success();
}

Status TraceWriter::finish(const TraceSummary& summary) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (Status s = w.flush(); !s) return s;
  std::string body;
  encode_summary(body, summary, w.table_sites);
  w.index.summary_offset = w.offset;
  if (Status s = w.write_block(BlockKind::summary, {}, body); !s) return s;
  body.clear();
  encode_index(body, w.index);
  uint64_t index_offset = w.offset;
  if (Status s = w.write_block(BlockKind::index, {}, body); !s) return s;
  std::string trailer;
  encode_trailer(trailer, Trailer{index_offset, w.offset - index_offset});
  if (Status s = write_all(w.fd.get(), trailer.data(), trailer.size()); !s) {
    return w.fail(s.error().context("cannot write '" + w.path + "'"));
  }
  w.offset += trailer.size();
  w.finished = true;
  int fd = w.fd.release();
  if (::close(fd) != 0) return w.fail(errno_error("cannot close '" + w.path + "'"));
  return Status::success();
}

uint64_t TraceWriter::bytes_written() const { return impl_->offset; }
uint64_t TraceWriter::events_written() const { return impl_->events_written; }

}  // namespace usdt::format
