#include "formats/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "common/file_io.h"
#include "common/unique_fd.h"
#include "formats/byte_source.h"
#include "formats/chunk_locator.h"
#include "formats/chunk_merger.h"
#include "formats/file_layout.h"
#include "formats/reader_state.h"
#include "formats/table_codec.h"

namespace usdt::format {

// Opening: the file header, metadata and probe table (formats/FORMAT.md
// section 6, "Opening"); then ChunkLocator finds the chunks and ChunkMerger
// returns their records.
struct TraceReader::Impl {
  ReaderState state;
  std::optional<ChunkMerger> merger;  // set by a successful read_start()

  Status read_start();
};

Status TraceReader::Impl::read_start() {
  Result<uint64_t> data_start = state.read_file_start();
  if (!data_start) return data_start.error();
  merger.emplace(state, ChunkLocator(state).locate(*data_start));
  return Status::success();
}

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
  impl->state.path = path;
  impl->state.options = options;
  impl->state.start_budget(options.memory_budget);
  impl->state.src = std::make_unique<FileSource>(std::move(*fd), static_cast<uint64_t>(st.st_size));
  if (Status s = impl->read_start(); !s) return s.error();
  return TraceReader(std::move(impl));
}

Result<TraceReader> TraceReader::open_bytes(std::string bytes, const std::string& name,
                                            const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->state.path = name;
  impl->state.options = options;
  impl->state.start_budget(options.memory_budget);
  impl->state.src = std::make_unique<MemorySource>(std::move(bytes));
  if (Status s = impl->read_start(); !s) return s.error();
  return TraceReader(std::move(impl));
}

const std::string& TraceReader::path() const { return impl_->state.path; }
const TraceMetadata& TraceReader::metadata() const { return impl_->state.metadata; }
const std::vector<ProbeSite>& TraceReader::sites() const { return impl_->state.sites; }
const std::vector<ObjectTable>& TraceReader::objects() const { return *impl_->state.objects; }
std::shared_ptr<const std::vector<ObjectTable>> TraceReader::shared_objects() const {
  return impl_->state.objects;
}
void TraceReader::set_filter(ReadFilter filter) { impl_->merger->set_filter(std::move(filter)); }
TraceReader TraceReader::fork() const {
  const ReaderState& from = impl_->state;
  auto impl = std::make_unique<Impl>();
  ReaderState& st = impl->state;
  st.path = from.path;
  st.minor_version = from.minor_version;
  st.src = from.src;
  st.options = from.options;
  st.options.decode_threads = 1;
  st.metadata = from.metadata;
  st.sites = from.sites;
  st.site_arg_counts = from.site_arg_counts;
  st.site_string_masks = from.site_string_masks;
  st.site_frames = from.site_frames;
  st.summary = from.summary;
  st.objects = from.objects;
  st.diag = from.diag;
  st.start_budget(from.budget.limit(), from.tables_held);
  impl->merger.emplace(st, impl_->merger->entries());
  return TraceReader(std::move(impl));
}

std::vector<ChunkHeader> TraceReader::chunk_headers() const {
  return impl_->merger->chunk_headers();
}
bool TraceReader::next() { return impl_->merger->next(); }
uint32_t TraceReader::next_events(const Event** first) { return impl_->merger->next_events(first); }
// Before the first next() or after the last, the accessors return empty
// records rather than crash.
RecordKind TraceReader::kind() const {
  return impl_->merger->current() ? impl_->merger->current()->kind() : RecordKind::event;
}
const Event& TraceReader::event() const {
  static const Event none;
  return impl_->merger->current() ? impl_->merger->current()->event() : none;
}
const ProcessEvent& TraceReader::process() const {
  static const ProcessEvent none;
  return impl_->merger->current() ? impl_->merger->current()->process() : none;
}
const LostEvent& TraceReader::lost() const {
  static const LostEvent none;
  return impl_->merger->current() ? impl_->merger->current()->lost() : none;
}
const std::optional<TraceSummary>& TraceReader::summary() const { return impl_->state.summary; }
const ReadDiagnostics& TraceReader::diagnostics() const {
  impl_->state.note_memory();
  return impl_->state.diag;
}
Completeness TraceReader::completeness() const {
  return scan_completeness(impl_->state, impl_->merger->entries());
}

}  // namespace usdt::format
