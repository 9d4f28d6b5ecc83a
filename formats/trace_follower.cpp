#include "formats/trace_follower.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "common/file_io.h"
#include "common/unique_fd.h"
#include "formats/byte_source.h"
#include "formats/chunk_locator.h"
#include "formats/chunk_merger.h"
#include "formats/reader_state.h"
#include "formats/table_codec.h"

namespace usdt::format {

FollowedChunks::FollowedChunks() = default;
FollowedChunks::FollowedChunks(FollowedChunks&&) noexcept = default;
FollowedChunks& FollowedChunks::operator=(FollowedChunks&&) noexcept = default;
FollowedChunks::~FollowedChunks() = default;

bool FollowedChunks::next() { return merger_ && merger_->next(); }
RecordKind FollowedChunks::kind() const {
  const ChunkDecoder* d = merger_ ? merger_->current() : nullptr;
  return d != nullptr ? d->kind() : RecordKind::event;
}
const Event& FollowedChunks::event() const { return merger_->current()->event(); }
const ProcessEvent& FollowedChunks::process() const { return merger_->current()->process(); }
const LostEvent& FollowedChunks::lost() const { return merger_->current()->lost(); }

TraceFollower::TraceFollower(TraceFollower&&) noexcept = default;
TraceFollower& TraceFollower::operator=(TraceFollower&&) noexcept = default;
TraceFollower::~TraceFollower() = default;

Result<TraceFollower> TraceFollower::open(const std::string& path) {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return errno_error("cannot read '" + path + "'");
  if (!S_ISREG(st.st_mode)) return Error("cannot follow '" + path + "': not a regular file");
  TraceFollower f;
  f.state_ = std::make_unique<ReaderState>();
  f.state_->path = path;
  f.state_->src = std::make_shared<FileSource>(std::move(*fd), static_cast<uint64_t>(st.st_size));
  Result<uint64_t> data_start = f.state_->read_file_start();
  if (!data_start) return data_start.error();
  f.next_offset_ = *data_start;
  return f;
}

const std::string& TraceFollower::path() const { return state_->path; }
const TraceMetadata& TraceFollower::metadata() const { return state_->metadata; }
uint16_t TraceFollower::minor_version() const { return state_->minor_version; }
const std::vector<ProbeSite>& TraceFollower::sites() const { return state_->sites; }
const std::optional<TraceSummary>& TraceFollower::summary() const { return state_->summary; }
const ReadDiagnostics& TraceFollower::diagnostics() const { return state_->diag; }

Result<FollowedChunks> TraceFollower::look() {
  FollowedChunks out;
  if (ended() || stopped_) return out;
  ReaderState& st = *state_;
  if (Status s = static_cast<FileSource&>(*st.src).refresh_size(); !s) {
    return s.error().context("cannot follow '" + st.path + "'");
  }
  const uint64_t size = st.src->size();
  std::vector<IndexEntry> chunks;
  std::string buf;
  while (size - next_offset_ >= kBlockHeaderSize) {
    if (Status s = st.src->read(next_offset_, kBlockHeaderSize, buf); !s) return s.error();
    ByteCursor in(buf);
    const BlockHeader h = decode_block_header(in);
    if (std::string bad = check_block_header(h); !bad.empty()) {
      st.problem(next_offset_, "no valid block at " + st.where(next_offset_) + " (" + bad +
                                   "): the file is not followed further");
      stopped_ = true;
      break;
    }
    if (h.total_size() > size - next_offset_) break;  // not written whole yet
    const uint64_t offset = next_offset_;
    next_offset_ += h.total_size();
    if (!take_block(offset, h.kind, chunks)) break;
  }
  if (!chunks.empty()) {
    out.chunks_ = chunks.size();
    out.merger_ = std::make_unique<ChunkMerger>(st, std::move(chunks));
  }
  return out;
}

bool TraceFollower::take_block(uint64_t offset, uint16_t kind, std::vector<IndexEntry>& chunks) {
  ReaderState& st = *state_;
  ChunkLocator blocks(st);
  switch (static_cast<BlockKind>(kind)) {
    case BlockKind::chunk: {
      std::string buf;
      if (!st.src->read(offset + kBlockHeaderSize, kChunkHeaderSize, buf)) return false;
      ByteCursor c(buf);
      const uint64_t size = next_offset_ - offset;
      chunks.push_back(IndexEntry{offset, size, decode_chunk_header(c)});
      return true;
    }
    case BlockKind::added_sites:
      blocks.read_added_sites(offset);
      return true;
    case BlockKind::object:
      blocks.read_object(offset);
      return true;
    case BlockKind::progress: {
      std::string body;
      Result<uint64_t> n = st.read_table_block(offset, BlockKind::progress, "progress", body);
      Result<Progress> p = n ? decode_progress(body) : Result<Progress>(n.error());
      if (!p) {
        st.problem(offset, p.error().message());
      } else if (!progress_ || p->complete_before_ns >= progress_->complete_before_ns) {
        progress_ = *p;
      }
      return true;
    }
    case BlockKind::summary:
      // Damaged or not, it ends the recording: only the index follows.
      blocks.read_summary(offset);
      ended_ = true;
      return false;
    case BlockKind::metadata:
    case BlockKind::probe_table:
    case BlockKind::index:
      st.problem(offset, "unexpected block of kind " + std::to_string(kind) + " at " +
                             st.where(offset) + ": skipped");
      return true;
  }
  ++st.diag.records_skipped;  // a block kind of a newer writer
  return true;
}

}  // namespace usdt::format
