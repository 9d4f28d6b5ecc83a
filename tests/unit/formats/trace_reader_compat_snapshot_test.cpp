// A trace written by the 1.8 writer, kept as bytes: a snapshot of a flight
// recorder (its role, recording id, number, window and trigger in the
// metadata, the fields of 1.7; its carried names alone in the first chunk).
// 1.7 and 1.8 came in together: no writer made a 1.7 file. Every later reader
// must read it exactly so; if this test fails, the format changed
// incompatibly: bump the major version (formats/FORMAT.md section 5) rather
// than edit these bytes.
#include <catch2/catch.hpp>
#include <cstdio>

#include "formats/table_codec.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

// The trace stored as kSnapshotTrace (below): snapshot 3 of recording 00..0f,
// window [1000, 3000], taken on a latency trigger fired by site 1 (pid 10,
// tid 11) at 2500 for a start at 1200, 2 triggers suppressed before it;
// carried comm record "server" at 999 in a chunk of its own, then two
// events. To store it again (only for a new minor version, never to make
// this test pass): run `trace_reader_compat_test "[.make_snapshot]"` and
// paste its output.
void write_snapshot(const std::string& path) {
  TraceMetadata m = sample_metadata();
  m.series.role = FileRole::snapshot;
  m.series.recording_id = "000102030405060708090a0b0c0d0e0f";
  m.series.sequence = 3;
  m.series.carried_ns = 999;
  m.series.window_begin_ns = 1000;
  m.series.window_end_ns = 3000;
  m.series.trigger = "latency prov:probe0 prov:probe1 > 1us";
  m.series.trigger_site = 1;
  m.series.trigger_time_ns = 2500;
  m.series.trigger_pid = 10;
  m.series.trigger_tid = 11;
  m.series.trigger_start_ns = 1200;
  m.series.suppressed = 2;
  auto w = TraceWriter::create(path, m, sample_sites(2));
  REQUIRE(w.ok());
  ProcessEvent comm;
  comm.time_ns = 999;
  comm.pid = comm.tid = 10;
  comm.comm = "server";
  REQUIRE(w->append(comm).ok());
  REQUIRE(w->flush().ok());
  for (uint32_t site : {0u, 1u}) {
    Event e;
    e.time_ns = site == 0 ? 1200 : 2500;
    e.pid = 10;
    e.tid = 11;
    e.site_id = site;
    REQUIRE(w->append(e).ok());
  }
  TraceSummary s;
  s.enabled_monotonic_ns = 1000;
  s.end_monotonic_ns = 3000;
  s.events = 2;
  s.events_per_site = {1, 1};
  REQUIRE(w->finish(s).ok());
}

const char kSnapshotTrace[] =
    "\x55\x53\x44\x54\x54\x52\x43\x0a\x01\x00\x08\x00\x18\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x55\x42\x4c\x4b\x01\x00\x00\x00"
    "\xb1\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\xa9\x25\x05"
    "\x00\xa4\x09\x08\x74\x65\x73\x74\x68\x6f\x73\x74\x0b\x36\x2e\x31"
    "\x38\x2e\x30\x2d\x06\x78\x38\x36\x5f\x36\x34\x80\x20\x20\x75\x73"
    "\x64\x74\x2d\x72\x65\x63\x6f\x72\x64\x20\x2d\x6f\x20\x74\x2e\x74"
    "\x72\x61\x63\x65\x20\x2d\x2d\x20\x2e\x2f\x70\x72\x6f\x67\x05\x30"
    "\x2e\x31\x2e\x30\xc0\x84\x3d\x80\x80\xa8\xb1\xe3\x9f\xe7\xcb\x17"
    "\x00\x02\x20\x30\x30\x30\x31\x30\x32\x30\x33\x30\x34\x30\x35\x30"
    "\x36\x30\x37\x30\x38\x30\x39\x30\x61\x30\x62\x30\x63\x30\x64\x30"
    "\x65\x30\x66\x03\xe7\x07\xe8\x07\xb8\x17\x25\x6c\x61\x74\x65\x6e"
    "\x63\x79\x20\x70\x72\x6f\x76\x3a\x70\x72\x6f\x62\x65\x30\x31\x20"
    "\x3e\x20\x31\x75\x73\x01\xc4\x13\x0a\x0b\xb0\x09\x02\x02\x00\xfa"
    "\x8b\xc5\x13\xcc\x25\xe6\x4a\xaf\x35\x55\x42\x4c\x4b\x02\x00\x00"
    "\x00\x6c\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x73\xfd"
    "\x02\x00\x34\x05\x02\x3b\x00\x01\x14\x2f\x75\x73\x72\x2f\x6c\x69"
    "\x62\x74\x65\x73\x74\x30\x2e\x73\x6f\x10\x30\x31\x32\x33\x34\x35"
    "\x36\x37\x38\x39\x61\x62\x63\x64\x65\x66\x04\x70\x72\x6f\x76\x06"
    "\x70\x72\x6f\x62\x65\x30\x80\x20\x80\x80\x01\x00\x00\x35\x01\x02"
    "\x31\x2e\x73\x6f\x00\x31\x81\x20\x00\x01\x07\x2d\x34\x40\x25\x65"
    "\x61\x78\x01\x00\x00\x01\x00\x03\x00\x4f\x19\xfa\x5f\x4d\x39\xeb"
    "\xbe\x7c\x62\x7c\xda\x55\x42\x4c\x4b\x03\x00\x38\x00\x34\x00\x00"
    "\x00\x00\x00\x00\x00\xe7\x03\x00\x00\x00\x00\x00\x00\xe7\x03\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00"
    "\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x28\xb5\x2f"
    "\xfd\x24\x49\x3d\x01\x00\xc0\xe7\x03\x00\x01\x00\x08\x00\x02\x0f"
    "\x01\x00\x01\x0b\x0a\x0a\x00\x00\x06\x73\x65\x72\x76\x65\x72\x06"
    "\x00\x20\x03\x30\x60\x90\x08\x42\xac\x10\xb8\xc0\x10\x86\xba\xbc"
    "\x39\x55\x42\x4c\x4b\x03\x00\x38\x00\x44\x00\x00\x00\x00\x00\x00"
    "\x00\xb0\x04\x00\x00\x00\x00\x00\x00\xc4\x09\x00\x00\x00\x00\x00"
    "\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x08\x00\x28\xb5\x2f\xfd\x24\x5e\xbd"
    "\x01\x00\x64\x02\xb0\x04\x00\xc4\x09\x00\x02\x00\x03\x00\x08\x00"
    "\x08\x00\x01\x24\x02\x02\x00\x01\x01\x0a\x0b\x00\x03\x02\x02\x02"
    "\x94\x0a\x00\x01\x00\x00\x00\x00\x00\x00\x06\x00\xb2\x92\x0b\x44"
    "\x0c\x5c\x0c\x24\x06\x32\x2e\x30\x04\x59\x2a\x62\x19\x55\x42\x4c"
    "\x4b\x04\x00\x00\x00\x1c\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f"
    "\xfd\x24\x0f\x79\x00\x00\xb8\x17\x02\x00\x02\x01\x01\x00\x00\x00"
    "\x00\xe8\x07\x00\x00\x3b\x41\x5d\x95\x55\x42\x4c\x4b\x05\x00\x00"
    "\x00\x59\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\xb0\x65"
    "\x02\x00\xf0\x5d\x02\x00\x00\x55\x01\x00\x7c\x00\xe7\x03\x08\x00"
    "\xd1\x01\x8c\x00\xb0\x04\xc4\x09\x08\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x15\x00\xa0\x04\x2e\x2c\x41\x40\x0c\x05\x72\x02\x73\x20\x00"
    "\x0c\x0c\x06\x06\x03\x83\x81\x2b\x39\x80\x01\x81\x0c\xa3\x1c\x70"
    "\x0b\x56\x14\x80\x36\x00\x62\xd0\x46\xc5\x01\x01\x0c\x01\x56\xee"
    "\xd2\x7c\x89\x02\x00\x00\x00\x00\x00\x00\x69\x00\x00\x00\x00\x00"
    "\x00\x00\x55\x53\x44\x54\x45\x4e\x44\x0a";

}  // namespace

TEST_CASE("print the stored snapshot trace", "[.make_snapshot]") {
  TempPath tmp;
  write_snapshot(tmp.str());
  std::fputs(c_array_text("kSnapshotTrace", read_file_bytes(tmp.str())).c_str(), stdout);
}

TEST_CASE("a stored snapshot (version 1.8) still reads exactly", "[trace_reader][compat]") {
  const std::string bytes(kSnapshotTrace, sizeof kSnapshotTrace - 1);
  CHECK(bytes.compare(8, 4, std::string("\x01\x00\x08\x00", 4)) == 0);  // version 1.8
  auto r = TraceReader::open_bytes(bytes, "snapshot.trace");
  REQUIRE(r.ok());
  const SeriesInfo& s = r->metadata().series;
  CHECK(s.role == FileRole::snapshot);
  CHECK(s.recording_id == "000102030405060708090a0b0c0d0e0f");
  CHECK(s.sequence == 3);
  CHECK(s.carried_ns == 999);
  CHECK(s.window_begin_ns == 1000);
  CHECK(s.window_end_ns == 3000);
  CHECK(s.trigger == "latency prov:probe0 prov:probe1 > 1us");
  CHECK(s.trigger_site == 1);
  CHECK(s.trigger_time_ns == 2500);
  CHECK(s.trigger_pid == 10);
  CHECK(s.trigger_tid == 11);
  CHECK(s.trigger_start_ns == 1200);
  CHECK(s.suppressed == 2);
  CHECK(r->metadata().hostname == "testhost");
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->enabled_monotonic_ns == 1000);
  auto recs = read_all(*r);
  REQUIRE(recs.size() == 3);
  CHECK(describe(recs[0]) == "process t=999 kind=1 pid=10 comm=server");
  CHECK(describe(recs[1]) == "event t=1200 site=0 pid=10 tid=11 cpu=0 n=0 miss=0");
  CHECK(describe(recs[2]) == "event t=2500 site=1 pid=10 tid=11 cpu=0 n=0 miss=0");
  // Read after the part before it: the carried chunk is left out.
  auto after = TraceReader::open_bytes(bytes, "snapshot.trace");
  REQUIRE(after.ok());
  ReadFilter f;
  f.skip_carried_ns = 999;
  after->set_filter(f);
  auto rest = read_all(*after);
  REQUIRE(rest.size() == 2);
  CHECK(describe(rest[0]) == "event t=1200 site=0 pid=10 tid=11 cpu=0 n=0 miss=0");
}

TEST_CASE("metadata without the 1.7 fields reads as a whole recording", "[trace_reader][compat]") {
  TraceMetadata m = sample_metadata();
  m.series.role = FileRole::part;
  m.series.recording_id = "abc";
  std::string body;
  encode_metadata(body, m);
  // The 1.6 fields end with the CPUs: cut the 1.7 ones off.
  TraceMetadata plain = sample_metadata();
  std::string old_body;
  encode_metadata(old_body, plain);
  // role, recording_id "", sequence, carried_ns, the window (2), trigger "",
  // trigger_site 0xffffffff (5 bytes), its time, pid, tid and start, suppressed
  const size_t series_bytes = 1 + 1 + 1 + 1 + 2 + 1 + 5 + 4 + 1;
  auto decoded =
      decode_metadata(std::string_view(old_body).substr(0, old_body.size() - series_bytes));
  REQUIRE(decoded.ok());
  CHECK(decoded->series.role == FileRole::whole);
  CHECK(decoded->series.recording_id.empty());
  CHECK(decoded->hostname == "testhost");
  auto full = decode_metadata(body);
  REQUIRE(full.ok());
  CHECK(full->series.role == FileRole::part);
  CHECK(full->series.recording_id == "abc");
  // An unknown role reads as a whole recording; a cut series field is damage.
  body[old_body.size() - series_bytes] = 9;
  CHECK(decode_metadata(body)->series.role == FileRole::whole);
  CHECK_FALSE(decode_metadata(std::string_view(body).substr(0, body.size() - 1)).ok());
}
