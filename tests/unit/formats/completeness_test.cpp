// Up to when a damaged trace's events are complete, per CPU
// (formats/completeness.h): chunks that overlap in time, as per-CPU ring
// buffers drained at different moments write them, then the file cut or
// damaged after one of them.
#include "formats/completeness.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

Event event_at(uint64_t time, uint32_t cpu) {
  Event e;
  e.time_ns = time;
  e.site_id = 0;
  e.pid = 100;
  e.tid = 100 + cpu;
  e.cpu = cpu;
  return e;
}

// Appends events and flushes them as one chunk; returns where the file ends.
uint64_t write_chunk(TraceWriter& w, const std::vector<Event>& events, const std::string& path) {
  for (const Event& e : events) REQUIRE(w.append(e).ok());
  REQUIRE(w.flush().ok());
  return read_file_bytes(path).size();
}

// A trace of three chunks as a recorder with two CPUs writes them: CPU 0's
// buffer drained first (1000..1400), then CPU 1's, whose older events
// (1100..1500) overlap; then CPU 0 again (1500..1900) with CPU 1 (1600..2000).
struct ThreeChunks {
  TempPath path;
  std::string bytes;
  uint64_t end_of_chunk[3] = {};

  // cpus: the recording's CPUs as the metadata lists them (1.6).
  explicit ThreeChunks(std::vector<uint32_t> cpus = {}) {
    std::vector<ProbeSite> sites = sample_sites(1);
    WriterOptions options;
    options.flush_interval_ms = 0;
    TraceMetadata metadata = sample_metadata();
    metadata.cpus = std::move(cpus);
    auto w = TraceWriter::create(path.str(), metadata, sites, options);
    REQUIRE(w.ok());
    end_of_chunk[0] =
        write_chunk(*w, {event_at(1000, 0), event_at(1200, 0), event_at(1400, 0)}, path.str());
    end_of_chunk[1] =
        write_chunk(*w, {event_at(1100, 1), event_at(1300, 1), event_at(1500, 1)}, path.str());
    end_of_chunk[2] = write_chunk(
        *w, {event_at(1500, 0), event_at(1900, 0), event_at(1600, 1), event_at(2000, 1)},
        path.str());
    TraceSummary summary;
    summary.end_monotonic_ns = 2100;
    summary.events = 10;
    REQUIRE(w->finish(summary).ok());
    bytes = read_file_bytes(path.str());
  }
};

Completeness completeness_of(const std::string& bytes) {
  auto reader = TraceReader::open_bytes(bytes, "t.trace");
  REQUIRE(reader.ok());
  return reader->completeness();
}

}  // namespace

TEST_CASE("a whole trace is complete", "[completeness]") {
  ThreeChunks t;
  Completeness c = completeness_of(t.bytes);
  CHECK(c.complete);
  CHECK(c.cpus.empty());
  CHECK_FALSE(c.incomplete_after_ns.has_value());
}

TEST_CASE("a trace cut inside a chunk: per CPU, complete up to its last event before the cut",
          "[completeness]") {
  ThreeChunks t;
  // Cut inside the third chunk: what is read ends at 1400 on CPU 0 and at
  // 1500 on CPU 1, and CPU 0's events from 1400 on may be missing although
  // CPU 1's event at 1500 was read: the events read are not a prefix in time.
  Completeness c = completeness_of(t.bytes.substr(0, t.end_of_chunk[2] - 10));
  CHECK_FALSE(c.complete);
  REQUIRE(c.cpus.size() == 2);
  CHECK(c.cpus[0].cpu == 0);
  CHECK(c.cpus[0].complete_until_ns == 1400);
  CHECK(c.cpus[1].cpu == 1);
  CHECK(c.cpus[1].complete_until_ns == 1500);
  CHECK(c.incomplete_after_ns == 1400);
  CHECK(c.damage_offset == t.end_of_chunk[1]);

  // The events read are exactly those of the intact chunks.
  auto reader = TraceReader::open_bytes(t.bytes.substr(0, t.end_of_chunk[2] - 10), "t.trace");
  REQUIRE(reader.ok());
  CHECK(read_all(*reader).size() == 6);
  CHECK(reader->diagnostics().truncated);
}

TEST_CASE("a trace cut after a whole chunk is incomplete from the last events read",
          "[completeness]") {
  ThreeChunks t;
  Completeness c = completeness_of(t.bytes.substr(0, t.end_of_chunk[0]));
  CHECK_FALSE(c.complete);
  REQUIRE(c.cpus.size() == 1);
  CHECK(c.cpus[0].complete_until_ns == 1400);
  CHECK(c.incomplete_after_ns == 1400);
}

TEST_CASE("a damaged chunk in the middle: complete up to the events before it", "[completeness]") {
  ThreeChunks t;
  std::string damaged = t.bytes;
  // A byte of the second chunk's compressed body (after its 16-byte frame
  // and 56-byte header): its checksum fails and it is skipped.
  const uint64_t body = t.end_of_chunk[0] + 16 + 56 + 4;
  damaged[body] = static_cast<char>(damaged[body] ^ 0x5a);
  Completeness c = completeness_of(damaged);
  CHECK_FALSE(c.complete);
  CHECK(c.damage_offset == t.end_of_chunk[0]);
  // CPU 0 is complete up to its last event before the damage; CPU 1 has
  // events only after it (in the third chunk), so its events may be missing
  // at any time.
  REQUIRE(c.cpus.size() == 2);
  CHECK(c.cpus[0].complete_until_ns == 1400);
  CHECK_FALSE(c.cpus[1].complete_until_ns.has_value());
  CHECK(c.incomplete_after_ns == 1400);
}

TEST_CASE("a trace cut inside its first chunk has no events and no time", "[completeness]") {
  ThreeChunks t;
  Completeness c = completeness_of(t.bytes.substr(0, t.end_of_chunk[0] - 1));
  CHECK_FALSE(c.complete);
  CHECK(c.cpus.empty());
  CHECK_FALSE(c.incomplete_after_ns.has_value());
}

TEST_CASE("a CPU of the recording without an event before the cut may miss events at any time",
          "[completeness]") {
  // The metadata lists CPUs 0, 1 and 2; CPU 2 has no event at all, CPU 1
  // none before the cut after the first chunk.
  ThreeChunks t({0, 1, 2});
  Completeness c = completeness_of(t.bytes.substr(0, t.end_of_chunk[0] + 20));
  CHECK_FALSE(c.complete);
  REQUIRE(c.cpus.size() == 3);
  CHECK(c.cpus[0].complete_until_ns == 1400);
  CHECK_FALSE(c.cpus[1].complete_until_ns.has_value());
  CHECK_FALSE(c.cpus[2].complete_until_ns.has_value());
  CHECK(c.incomplete_after_ns == 1400);
  // A whole file lists nothing, whatever its CPUs did.
  CHECK(completeness_of(t.bytes).complete);
}

TEST_CASE("the metadata's CPUs round-trip; a file without them lists none", "[completeness]") {
  ThreeChunks with({0, 1, 3});
  auto r = TraceReader::open_bytes(with.bytes, "t.trace");
  REQUIRE(r.ok());
  CHECK(r->metadata().cpus == std::vector<uint32_t>{0, 1, 3});
  ThreeChunks without;
  auto r2 = TraceReader::open_bytes(without.bytes, "t.trace");
  REQUIRE(r2.ok());
  CHECK(r2->metadata().cpus.empty());
}

TEST_CASE("a damaged last chunk of a finished file: incomplete after the events before it",
          "[completeness]") {
  ThreeChunks t({0, 1});
  std::string damaged = t.bytes;
  const uint64_t body = t.end_of_chunk[1] + 16 + 56 + 4;
  damaged[body] = static_cast<char>(damaged[body] ^ 0x5a);
  Completeness c = completeness_of(damaged);
  CHECK_FALSE(c.complete);
  CHECK(c.damage_offset == t.end_of_chunk[1]);
  REQUIRE(c.cpus.size() == 2);
  CHECK(c.cpus[0].complete_until_ns == 1400);
  CHECK(c.cpus[1].complete_until_ns == 1500);
  CHECK(c.incomplete_after_ns == 1400);
}
