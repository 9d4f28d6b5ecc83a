#include "formats/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "common/file_io.h"
#include "common/unique_fd.h"
#include "formats/byte_source.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/table_codec.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

struct TraceReader::Impl {
  std::string path;
  std::unique_ptr<ByteSource> src;
  ReaderOptions options;
  TraceMetadata metadata;
  std::vector<ProbeSite> sites;
  std::vector<uint8_t> site_arg_counts;
  std::vector<uint16_t> site_string_masks;  // bit i: argument i is a string
  std::optional<TraceSummary> summary;
  ReadDiagnostics diag;
  ReadFilter filter;
  bool filtering = false;
  std::vector<bool> site_wanted;  // by site id, when filter.site_ids is set
  uint64_t site_bloom_wanted = ~uint64_t{0};

  // Chunks in (min_time, file order); seq is the file order.
  struct Chunk {
    IndexEntry entry;
    uint64_t seq;
  };
  std::vector<Chunk> chunks;
  size_t pending = 0;
  uint64_t active_payload = 0;  // decompressed bytes held by cur and heap
  uint64_t pending_min = 0;     // min_time_ns of chunks[pending], the next to load

  struct Active {
    std::unique_ptr<ChunkDecoder> d;
    uint64_t seq = 0;
    uint64_t offset = 0;
    uint64_t emitted = 0;
  };
  Active cur;                // the active chunk with the smallest next record
  std::vector<Active> heap;  // the other active chunks, a min-heap
  std::unique_ptr<ChunkDecoder> retired;
  const ChunkDecoder* out = nullptr;
  bool started = false;
  bool done = false;

  ZstdDecompressor zstd;
  std::string block_buf, payload_buf;

  std::string where(uint64_t offset) const {
    return "'" + path + "' at offset " + std::to_string(offset) + " (" + hex(offset) + ")";
  }
  void problem(uint64_t offset, std::string message) {
    diag.problems.push_back(ReadProblem{offset, std::move(message)});
  }

  // --- opening ---------------------------------------------------------

  // Reads and decompresses the block at offset, which must be of kind;
  // body_out gets the decompressed body, returns the whole block's size.
  Result<uint64_t> read_table_block(uint64_t offset, BlockKind kind, const char* what,
                                    std::string& body_out) {
    uint64_t size = src->size();
    if (size - offset < kBlockHeaderSize) {
      return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                   ", inside the " + what + " block");
    }
    Status s = src->read(offset, kBlockHeaderSize, block_buf);
    if (!s) return s.error().context("cannot read '" + path + "'");
    ByteCursor in(block_buf);
    BlockHeader h = decode_block_header(in);
    if (std::string bad = check_block_header(h); !bad.empty()) {
      return Error("cannot read the " + std::string(what) + " block of " + where(offset) + ": " +
                   bad);
    }
    if (h.kind != static_cast<uint16_t>(kind)) {
      return Error("cannot read " + where(offset) + ": expected the " + what +
                   " block, found a block of kind " + std::to_string(h.kind));
    }
    if (h.total_size() > size - offset) {
      return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                   ", inside the " + what + " block at offset " + std::to_string(offset));
    }
    s = src->read(offset + kBlockHeaderSize + h.header_size, h.body_size, block_buf);
    if (s) s = zstd.decompress(block_buf, kMaxTablePayload, body_out);
    if (!s) {
      return s.error().context("the " + std::string(what) + " block of " + where(offset) +
                               " is damaged");
    }
    return h.total_size();
  }

  Status read_start() {
    uint64_t size = src->size();
    if (size == 0) {
      return Error("'" + path + "' is empty: not a usdt-trace file (no header at offset 0)");
    }
    std::string head;
    Status s = src->read(0, std::min<uint64_t>(size, kFileHeaderSize), head);
    if (!s) return s.error().context("cannot read '" + path + "'");
    if (head.size() < sizeof kFileMagic ||
        head.compare(0, sizeof kFileMagic, kFileMagic, sizeof kFileMagic) != 0) {
      if (head.size() < sizeof kFileMagic && std::string_view(kFileMagic, head.size()) == head) {
        return Error("'" + path + "' is truncated: the file ends at offset " +
                     std::to_string(size) + ", inside its header");
      }
      return Error("'" + path + "' is not a usdt-trace file (bad magic at offset 0)");
    }
    if (head.size() < kFileHeaderSize) {
      return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                   ", inside its header");
    }
    ByteCursor in(head);
    in.skip(sizeof kFileMagic);
    uint16_t major = in.u16();
    uint16_t minor = in.u16();
    uint32_t header_size = in.u32();
    std::string version = std::to_string(major) + "." + std::to_string(minor);
    if (major > kVersionMajor) {
      return Error("'" + path + "' has format version " + version +
                   ", this reader understands up to " + std::to_string(kVersionMajor) +
                   ".x: upgrade usdt-report");
    }
    if (major < kVersionMajor) {
      return Error("'" + path + "' has format version " + version +
                   ", which this reader does not understand (it reads " +
                   std::to_string(kVersionMajor) + ".x)");
    }
    if (header_size < kFileHeaderSize || header_size > kMaxFileHeaderSize) {
      return Error("'" + path + "' has a bad header size " + std::to_string(header_size) +
                   " at offset 12 (expected " + std::to_string(kFileHeaderSize) + ".." +
                   std::to_string(kMaxFileHeaderSize) + ")");
    }
    if (header_size > size) {
      return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                   ", inside its header");
    }
    std::string body;
    uint64_t offset = header_size;
    auto n = read_table_block(offset, BlockKind::metadata, "metadata", body);
    if (!n) return n.error();
    auto meta = decode_metadata(body);
    if (!meta) return meta.error().context("cannot read " + where(offset));
    metadata = std::move(*meta);
    offset += *n;
    n = read_table_block(offset, BlockKind::probe_table, "probe table", body);
    if (!n) return n.error();
    auto table = decode_probe_table(body);
    if (!table) return table.error().context("cannot read " + where(offset));
    sites = std::move(*table);
    for (const auto& site : sites) {
      site_arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
      uint16_t strings = 0;
      for (size_t i = 0; i < site.args.size(); ++i) {
        if (site.args[i].is_string) strings = static_cast<uint16_t>(strings | (1u << i));
      }
      site_string_masks.push_back(strings);
    }
    offset += *n;

    if (!read_footer(offset)) scan(offset);
    for (size_t i = 0; i < chunks.size(); ++i) chunks[i].seq = i;
    std::stable_sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) {
      return a.entry.header.min_time_ns < b.entry.header.min_time_ns;
    });
    return Status::success();
  }

  // Uses the trailer and the index when both are intact; false (with a
  // problem noted when they exist but are damaged) means "scan instead".
  bool read_footer(uint64_t data_start) {
    uint64_t size = src->size();
    if (size < data_start + kTrailerSize) return false;
    std::string buf;
    if (!src->read(size - kTrailerSize, kTrailerSize, buf)) return false;
    ByteCursor in(buf);
    Trailer t = decode_trailer(in);
    if (!in.ok()) return false;  // no trailer: the recording did not finish
    uint64_t trailer_at = size - kTrailerSize;
    if (t.index_offset < data_start || t.index_offset > trailer_at ||
        t.index_size != trailer_at - t.index_offset) {
      problem(trailer_at, "the trailer at offset " + std::to_string(trailer_at) +
                              " points outside the file; reading chunks without the index");
      return false;
    }
    std::string body;
    auto n = read_table_block(t.index_offset, BlockKind::index, "index", body);
    Result<ChunkIndex> index = n ? decode_index(body) : Result<ChunkIndex>(n.error());
    if (!index) {
      problem(t.index_offset, index.error().message() + "; reading chunks without the index");
      return false;
    }
    uint64_t at = data_start;
    for (const auto& e : index->chunks) {
      if (e.offset < at || e.block_size > t.index_offset - e.offset ||
          e.block_size < kBlockHeaderSize + kChunkHeaderSize) {
        problem(t.index_offset, "the index at offset " + std::to_string(t.index_offset) +
                                    " lists a chunk outside the data; reading chunks without it");
        return false;
      }
      at = e.offset + e.block_size;
    }
    if (index->summary_offset != 0) {
      auto m = index->summary_offset >= data_start && index->summary_offset < t.index_offset
                   ? read_table_block(index->summary_offset, BlockKind::summary, "summary", body)
                   : Result<uint64_t>(Error("the index points to a summary outside the data"));
      auto s = m ? decode_summary(body, sites.size()) : Result<TraceSummary>(m.error());
      if (s) {
        summary = std::move(*s);
      } else {
        problem(index->summary_offset, s.error().message());
      }
    }
    for (const auto& e : index->chunks) chunks.push_back(Chunk{e, 0});
    return true;
  }

  // Whether a complete, plausible block frame starts at offset.
  bool plausible_block(uint64_t offset) {
    uint64_t size = src->size();
    std::string buf;
    if (size - offset < kBlockHeaderSize || !src->read(offset, kBlockHeaderSize, buf)) {
      return false;
    }
    ByteCursor in(buf);
    BlockHeader h = decode_block_header(in);
    return check_block_header(h).empty() && h.kind >= 1 &&
           h.kind <= static_cast<uint16_t>(BlockKind::index) && h.total_size() <= size - offset;
  }

  // The offset of the next plausible block at or after from, searching for
  // the sync value in windows of the file; nullopt when there is none.
  std::optional<uint64_t> find_block(uint64_t from) {
    constexpr uint64_t kWindow = 1 << 16;
    constexpr char kSync[4] = {'U', 'B', 'L', 'K'};
    uint64_t size = src->size();
    std::string window;
    for (uint64_t at = from; at < size && size - at >= kBlockHeaderSize;) {
      uint64_t n = std::min(size - at, kWindow);
      if (!src->read(at, n, window)) return std::nullopt;
      for (size_t i = 0; i + sizeof kSync <= window.size(); ++i) {
        if (std::memcmp(window.data() + i, kSync, sizeof kSync) == 0 && plausible_block(at + i)) {
          return at + i;
        }
      }
      if (n < kWindow) break;
      at += n - (sizeof kSync - 1);  // a sync value may straddle two windows
    }
    return std::nullopt;
  }

  // Walks the blocks from data_start, collecting chunk headers, up to the
  // end of the file or the first block that is incomplete. A block frame
  // that is damaged is skipped up to the next plausible frame (the chunk it
  // held is lost; the checksum still guards what the next frame holds).
  void scan(uint64_t offset) {
    uint64_t size = src->size();
    diag.truncated = true;
    std::string buf;
    // Where to look for the next frame when the one at offset is bad: just
    // after the previous frame, since a damaged size field in the previous
    // frame may have sent us past the real next one.
    uint64_t resync_from = offset + 1;
    for (;;) {
      if (offset == size) {
        problem(offset, "'" + path + "' ends at offset " + std::to_string(offset) +
                            " without its footer: the recording did not finish");
        return;
      }
      if (size - offset < kBlockHeaderSize) {
        problem(offset, "'" + path + "' is truncated: it ends inside the block at offset " +
                            std::to_string(offset));
        return;
      }
      if (!src->read(offset, kBlockHeaderSize, buf)) return;
      ByteCursor in(buf);
      BlockHeader h = decode_block_header(in);
      if (std::string bad = check_block_header(h); !bad.empty()) {
        std::optional<uint64_t> next = find_block(resync_from);
        if (!next) {
          problem(offset, "no valid block at " + where(offset) + " (" + bad +
                              "): the rest of the file is not read");
          return;
        }
        problem(offset, "no valid block at " + where(offset) + " (" + bad +
                            "): resuming at the block at offset " + std::to_string(*next));
        offset = *next;
        resync_from = offset + 1;
        continue;
      }
      if (h.total_size() > size - offset) {
        // The file ends inside this block, or its size field is damaged: a
        // complete block further on tells the two apart.
        std::optional<uint64_t> next = find_block(resync_from);
        if (!next) {
          problem(offset, "'" + path + "' is truncated: it ends at offset " + std::to_string(size) +
                              ", inside the block at offset " + std::to_string(offset));
          return;
        }
        problem(offset, "the block at " + where(offset) +
                            " claims more bytes than the file holds: resuming at the block at "
                            "offset " +
                            std::to_string(*next));
        offset = *next;
        resync_from = offset + 1;
        continue;
      }
      switch (static_cast<BlockKind>(h.kind)) {
        case BlockKind::chunk: {
          if (!src->read(offset + kBlockHeaderSize, kChunkHeaderSize, buf)) return;
          ByteCursor c(buf);
          chunks.push_back(Chunk{IndexEntry{offset, h.total_size(), decode_chunk_header(c)}, 0});
          break;
        }
        case BlockKind::summary: {
          std::string body;
          auto n = read_table_block(offset, BlockKind::summary, "summary", body);
          auto s = n ? decode_summary(body, sites.size()) : Result<TraceSummary>(n.error());
          if (s) {
            summary = std::move(*s);
          } else {
            problem(offset, s.error().message());
          }
          break;
        }
        case BlockKind::index: {
          // The index is there but it or the trailer is damaged, or the file
          // ends inside the trailer.
          uint64_t end = offset + h.total_size();
          if (size - end == kTrailerSize) {
            diag.truncated = false;
            if (diag.problems.empty()) {
              problem(end, "the trailer of '" + path + "' at offset " + std::to_string(end) +
                               " is damaged: chunks were found by scanning");
            }
          } else {
            problem(end, "'" + path + "' is truncated: it ends at offset " + std::to_string(size) +
                             ", inside the trailer at offset " + std::to_string(end));
          }
          return;
        }
        case BlockKind::metadata:
        case BlockKind::probe_table:
          problem(offset, "unexpected block of kind " + std::to_string(h.kind) + " at " +
                              where(offset) + " (a damaged chunk?): skipped");
          break;
        default:
          ++diag.records_skipped;  // a block kind of a newer writer
          break;
      }
      resync_from = offset + kBlockHeaderSize;
      offset += h.total_size();
    }
  }

  // --- iteration -------------------------------------------------------

  void set_filter(ReadFilter f) {
    filter = std::move(f);
    filtering = !filter.site_ids.empty() || filter.pid || filter.tid || filter.time_min_ns ||
                filter.time_max_ns;
    site_wanted.clear();
    site_bloom_wanted = ~uint64_t{0};
    if (!filter.site_ids.empty()) {
      site_wanted.assign(sites.size(), false);
      site_bloom_wanted = 0;
      for (uint32_t id : filter.site_ids) {
        if (id < sites.size()) site_wanted[id] = true;
        site_bloom_wanted |= site_bit(id);
      }
    }
  }

  // Whether the chunk may hold a record the filter lets through.
  bool chunk_may_match(const ChunkHeader& h) const {
    const auto& f = filter;
    if (f.time_max_ns && h.min_time_ns > *f.time_max_ns) return false;
    bool in_window = !(f.time_min_ns && h.max_time_ns < *f.time_min_ns);
    bool thread_ok = (!f.pid || (h.pid_bloom & bloom_bit(*f.pid))) &&
                     (!f.tid || (h.tid_bloom & bloom_bit(*f.tid)));
    bool events = h.events > 0 && in_window && thread_ok && (h.site_bloom & site_bloom_wanted);
    bool process = h.process_events > 0 && thread_ok;
    bool lost = h.lost_records > 0 && in_window;
    return events || process || lost;
  }

  bool matches(const ChunkDecoder& d) const {
    const auto& f = filter;
    switch (d.kind()) {
      case RecordKind::event: {
        const Event& e = d.event();
        if (!site_wanted.empty() && !site_wanted[e.site_id]) return false;
        if (f.pid && e.pid != *f.pid) return false;
        if (f.tid && e.tid != *f.tid) return false;
        if (f.time_min_ns && e.time_ns < *f.time_min_ns) return false;
        if (f.time_max_ns && e.time_ns > *f.time_max_ns) return false;
        return true;
      }
      case RecordKind::process: {
        const ProcessEvent& e = d.process();
        if (f.pid && e.pid != *f.pid) return false;
        if (f.tid && e.tid != *f.tid) return false;
        if (f.time_max_ns && e.time_ns > *f.time_max_ns) return false;
        return true;
      }
      case RecordKind::lost: {
        const LostEvent& e = d.lost();
        if (!site_wanted.empty() && e.site_id != kNoSite && !site_wanted[e.site_id]) return false;
        uint64_t begin = std::min(e.time_begin_ns, e.time_end_ns);
        uint64_t end = std::max(e.time_begin_ns, e.time_end_ns);
        if (f.time_min_ns && end < *f.time_min_ns) return false;
        if (f.time_max_ns && begin > *f.time_max_ns) return false;
        return true;
      }
    }
    return false;
  }

  void bad_chunk(uint64_t offset, const std::string& why) {
    ++diag.chunks_bad;
    problem(offset, "chunk at " + where(offset) + " is damaged (" + why + "): skipped");
  }

  // Reads, checks and decompresses one chunk; nullptr when it is bad.
  std::unique_ptr<ChunkDecoder> load(const IndexEntry& e) {
    Status s = src->read(e.offset, e.block_size, block_buf);
    if (!s) {
      bad_chunk(e.offset, s.error().message());
      return nullptr;
    }
    ByteCursor in(block_buf);
    BlockHeader h = decode_block_header(in);
    if (std::string bad = check_block_header(h); !bad.empty()) {
      bad_chunk(e.offset, bad);
      return nullptr;
    }
    if (h.kind != static_cast<uint16_t>(BlockKind::chunk) || h.total_size() != e.block_size) {
      bad_chunk(e.offset, "the block does not match the index");
      return nullptr;
    }
    ChunkHeader header = decode_chunk_header(in);
    if (!(header == e.header)) {
      bad_chunk(e.offset, "its header does not match the index");
      return nullptr;
    }
    in.skip(h.header_size - kChunkHeaderSize);
    std::string_view frame = in.bytes(h.body_size);
    if (!in.ok()) {
      bad_chunk(e.offset, "short block");
      return nullptr;
    }
    uint64_t content = zstd_content_size(frame);
    if (content <= options.max_chunk_payload &&
        content >
            options.max_active_payload - std::min(active_payload, options.max_active_payload)) {
      bad_chunk(e.offset, "it overlaps in time with chunks holding " +
                              std::to_string(active_payload) + " bytes already, and " +
                              std::to_string(content) +
                              " more would exceed the reader's limit of " +
                              std::to_string(options.max_active_payload));
      return nullptr;
    }
    s = zstd.decompress(frame, options.max_chunk_payload, payload_buf);
    if (!s) {
      bad_chunk(e.offset, s.error().message());
      return nullptr;
    }
    auto d = std::make_unique<ChunkDecoder>(std::move(payload_buf), &site_arg_counts,
                                            &site_string_masks);
    payload_buf = std::string();
    if (!d->start(e.header)) {
      bad_chunk(e.offset, d->error());
      return nullptr;
    }
    ++diag.chunks_read;
    return d;
  }

  static bool before(const Active& a, const Active& b) {
    if (a.d->next_time() != b.d->next_time()) return a.d->next_time() < b.d->next_time();
    if (a.d->next_rank() != b.d->next_rank()) return a.d->next_rank() < b.d->next_rank();
    return a.seq < b.seq;
  }
  static bool heap_after(const Active& a, const Active& b) { return before(b, a); }

  void push(Active a) {
    if (!cur.d) {
      cur = std::move(a);
      return;
    }
    if (before(a, cur)) std::swap(a, cur);
    heap.push_back(std::move(a));
    std::push_heap(heap.begin(), heap.end(), heap_after);
  }

  Active pop_heap_min() {
    std::pop_heap(heap.begin(), heap.end(), heap_after);
    Active a = std::move(heap.back());
    heap.pop_back();
    return a;
  }

  // Loads every pending chunk that may hold a record no later than the
  // smallest one among the active chunks.
  void load_due() {
    while (pending < chunks.size()) {
      const Chunk& c = chunks[pending];
      if (cur.d && c.entry.header.min_time_ns > cur.d->next_time()) break;
      ++pending;
      if (!chunk_may_match(c.entry.header)) continue;
      auto d = load(c.entry);
      if (!d) continue;
      diag.records_skipped += d->records_skipped();
      if (!d->has_next()) continue;
      active_payload += d->payload_size();
      push(Active{std::move(d), c.seq, c.entry.offset, 0});
    }
    pending_min = pending < chunks.size() ? chunks[pending].entry.header.min_time_ns
                                          : std::numeric_limits<uint64_t>::max();
  }

  void retire_current() {
    if (cur.d->failed()) {
      ++diag.chunks_bad;
      problem(cur.offset, "chunk at " + where(cur.offset) + " is damaged after " +
                              std::to_string(cur.emitted) + " records (" + cur.d->error() +
                              "): the rest of it is skipped");
    }
    active_payload -= cur.d->payload_size();
    retired = std::move(cur.d);
    cur = Active{};
    if (!heap.empty()) cur = pop_heap_min();
  }

  bool next() {
    if (retired) retired.reset();
    if (done) return false;
    for (;;) {
      if (!cur.d || pending_min <= cur.d->next_time()) load_due();
      if (!cur.d) {
        done = true;
        out = nullptr;
        return false;
      }
      ChunkDecoder* d = cur.d.get();
      d->advance();
      ++cur.emitted;
      out = d;
      if (!d->has_next()) {
        retire_current();
      } else if (!heap.empty() && before(heap.front(), cur)) {
        Active next = pop_heap_min();
        heap.push_back(std::move(cur));
        std::push_heap(heap.begin(), heap.end(), heap_after);
        cur = std::move(next);
      }
      if (!filtering || matches(*out)) return true;
    }
  }
};

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

Result<TraceReader> TraceReader::open(const std::string& path) { return open(path, {}); }

Result<TraceReader> TraceReader::open(const std::string& path, const ReaderOptions& options) {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return errno_error("cannot read '" + path + "'");
  if (S_ISDIR(st.st_mode)) return Error("cannot read '" + path + "': it is a directory");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  impl->src = std::make_unique<FileSource>(std::move(*fd), static_cast<uint64_t>(st.st_size));
  if (Status s = impl->read_start(); !s) return s.error();
  return TraceReader(std::move(impl));
}

Result<TraceReader> TraceReader::open_bytes(std::string bytes, const std::string& name,
                                            const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = name;
  impl->options = options;
  impl->src = std::make_unique<MemorySource>(std::move(bytes));
  if (Status s = impl->read_start(); !s) return s.error();
  return TraceReader(std::move(impl));
}

const std::string& TraceReader::path() const { return impl_->path; }
const TraceMetadata& TraceReader::metadata() const { return impl_->metadata; }
const std::vector<ProbeSite>& TraceReader::sites() const { return impl_->sites; }
void TraceReader::set_filter(ReadFilter filter) { impl_->set_filter(std::move(filter)); }
bool TraceReader::next() { return impl_->next(); }
// Before the first next() or after the last, the accessors return empty
// records rather than crash.
RecordKind TraceReader::kind() const { return impl_->out ? impl_->out->kind() : RecordKind::event; }
const Event& TraceReader::event() const {
  static const Event none;
  return impl_->out ? impl_->out->event() : none;
}
const ProcessEvent& TraceReader::process() const {
  static const ProcessEvent none;
  return impl_->out ? impl_->out->process() : none;
}
const LostEvent& TraceReader::lost() const {
  static const LostEvent none;
  return impl_->out ? impl_->out->lost() : none;
}
const std::optional<TraceSummary>& TraceReader::summary() const { return impl_->summary; }
const ReadDiagnostics& TraceReader::diagnostics() const { return impl_->diag; }

}  // namespace usdt::format
