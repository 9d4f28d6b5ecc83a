// TraceWriter's bounded output (WriterOptions::max_bytes: the file stays
// within the size, its end written) and its chunks kept and copied whole
// into another file (BlockOutput::write_chunk, append_chunk_block), as the
// recorder's --max-size and flight recorder use them.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;
using usdt::Status;

namespace {

Event event_at(uint64_t i) {
  Event e;
  e.time_ns = 2000000 + i * 1000;
  e.pid = e.tid = 10;
  e.site_id = 1 + static_cast<uint32_t>(i % 2);  // sites 1 and 2 have arguments
  e.arg_count = 1;
  e.args[0] = i * 2654435761u;  // poorly compressible
  return e;
}

// Keeps every chunk the writer completes.
class KeptChunks : public BlockOutput {
 public:
  struct Chunk {
    std::string block;
    ChunkHeader header;
    SiteCounts counts;
  };
  Status write(std::string_view) override { return Status::success(); }
  Status write_chunk(std::string_view block, const ChunkHeader& header,
                     const SiteCounts& counts) override {
    chunks->push_back(Chunk{std::string(block), header, counts});
    return Status::success();
  }
  Status close() override { return Status::success(); }
  const std::string& name() const override { return name_; }
  std::vector<Chunk>* chunks = nullptr;

 private:
  std::string name_ = "memory";
};

}  // namespace

TEST_CASE("max_bytes: the file stays within the size, with its end", "[trace_writer]") {
  TempPath tmp;
  WriterOptions options;
  options.chunk_bytes = 2048;
  options.max_bytes = 16 * 1024;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3), options);
  REQUIRE(w.ok());
  const uint64_t total = 20000;
  for (uint64_t i = 0; i < total; ++i) REQUIRE(w->append(event_at(i)).ok());
  REQUIRE(w->flush().ok());
  CHECK(w->full());
  CHECK(w->events_written() + w->events_refused() == total);
  CHECK(w->events_written() > 0);
  TraceSummary s;
  s.events = w->events_written();
  s.events_per_site = w->events_per_site();
  s.lost_per_site = w->lost_per_site();
  s.dropped = {{"max_size", w->events_refused()}};
  REQUIRE(w->finish(s).ok());
  struct stat st {};
  REQUIRE(::stat(tmp.str().c_str(), &st) == 0);
  CHECK(static_cast<uint64_t>(st.st_size) <= options.max_bytes);
  CHECK(static_cast<uint64_t>(st.st_size) == w->bytes_written());
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  auto recs = read_all(*r);
  CHECK(recs.size() == s.events);
  CHECK_FALSE(r->diagnostics().truncated);
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->events == s.events);
  CHECK(r->summary()->events_per_site[1] + r->summary()->events_per_site[2] == s.events);
}

TEST_CASE("max_bytes too small for anything is refused at creation", "[trace_writer]") {
  TempPath tmp;
  WriterOptions options;
  options.max_bytes = 100;
  auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3), options);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message().find("leave no room") != std::string::npos);
}

TEST_CASE("chunks kept in memory copy whole into another file", "[trace_writer]") {
  std::vector<KeptChunks::Chunk> chunks;
  auto out = std::make_unique<KeptChunks>();
  out->chunks = &chunks;
  WriterOptions options;
  options.chunk_bytes = 1024;
  auto w = TraceWriter::create(std::move(out), sample_metadata(), sample_sites(3), options);
  REQUIRE(w.ok());
  for (uint64_t i = 0; i < 300; ++i) REQUIRE(w->append(event_at(i)).ok());
  LostEvent lost;
  lost.time_begin_ns = lost.time_end_ns = 2500000;
  lost.site_id = 1;
  lost.count = 4;
  REQUIRE(w->append(lost).ok());
  REQUIRE(w->flush().ok());
  REQUIRE(chunks.size() > 2);
  uint64_t counted = 0;
  for (const auto& c : chunks) {
    for (const auto& [site, n] : c.counts.events) counted += n;
  }
  CHECK(counted == 300);

  TempPath tmp;
  auto copy = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(3));
  REQUIRE(copy.ok());
  for (const auto& c : chunks) REQUIRE(copy->append_chunk_block(c.block, c.header, c.counts).ok());
  CHECK(copy->events_written() == 300);
  CHECK(copy->events_per_site() == std::vector<uint64_t>{0, 150, 150});
  CHECK(copy->lost_per_site() == std::vector<uint64_t>{0, 4, 0});
  CHECK(copy->lost_written() == 4);
  TraceSummary s;
  s.events = 300;
  s.lost = 4;
  s.events_per_site = copy->events_per_site();
  s.lost_per_site = copy->lost_per_site();
  REQUIRE(copy->finish(s).ok());
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  auto recs = read_all(*r);
  REQUIRE(recs.size() == 301);
  CHECK(r->diagnostics().problems.empty());
  // A chunk naming a site the file does not have is refused.
  TempPath small;
  auto one = TraceWriter::create(small.str(), sample_metadata(), sample_sites(1));
  REQUIRE(one.ok());
  CHECK_FALSE(one->append_chunk_block(chunks[0].block, chunks[0].header, chunks[0].counts).ok());
}
