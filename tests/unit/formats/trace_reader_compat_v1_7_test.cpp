// A trace written by the 1.7 writer, kept as bytes: a snapshot of a flight
// recorder (its role, recording id, number, window and trigger in the
// metadata; its carried names alone in the first chunk). Every later reader
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

// The trace stored as kTraceV1_7 (below): snapshot 3 of recording 00..0f,
// window [1000, 3000], taken on a latency trigger fired by site 1 (pid 10,
// tid 11) at 2500 for a start at 1200, 2 triggers suppressed before it;
// carried comm record "server" at 999 in a chunk of its own, then two
// events. To store it again (only for a new minor version, never to make
// this test pass): run `trace_reader_compat_test "[.make_v1_7]"` and
// paste its output.
void write_v1_7(const std::string& path) {
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

const char kTraceV1_7[] =
    "\x55\x53\x44\x54\x54\x52\x43\x0a\x01\x00\x06\x00\x18\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x55\x42\x4c\x4b\x01\x00\x00\x00"
    "\xaa\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\xa8\xed\x04"
    "\x00\x92\x89\x24\x2a\x70\x6d\x3a\xb4\x2a\x3b\x24\x74\xaa\x49\x04"
    "\x14\x59\xab\x68\x24\xfb\xaa\xc6\xcc\x28\x76\x6f\xad\xaa\xfa\x52"
    "\xd1\xb0\x28\x42\x4b\xf6\x47\x40\x97\x27\x23\x9f\x86\x00\xd1\x53"
    "\xc1\x53\x19\x0e\x22\x00\xee\x64\x47\x5a\xbe\x6a\xf6\x72\x0f\x8c"
    "\xbd\x5c\x6b\xe8\xa5\xe6\xcc\x82\xb0\x40\x54\x89\xfa\x02\x93\xd7"
    "\x6f\xa7\xd7\x9e\xdd\x71\xec\x8d\xcf\x33\x7e\x7d\x71\xc5\xe5\xff"
    "\x9e\xac\xd1\xc7\x21\x7d\x3a\x9e\x07\xd9\x84\x1e\x65\xbc\x80\x62"
    "\x2f\x97\x88\x0d\x61\x57\x9a\xdd\x1c\x73\x5b\xd8\xdb\xb5\xb4\x5e"
    "\x98\x37\xdc\x75\x7b\xd7\x94\x4c\x2c\x33\x80\x8f\x98\x8c\xb3\xca"
    "\xd8\x56\x32\xae\x99\x10\x02\x00\xf9\x8b\xc5\x13\xcc\x25\xa7\xde"
    "\xf9\x4f\x55\x42\x4c\x4b\x02\x00\x00\x00\x6c\x00\x00\x00\x00\x00"
    "\x00\x00\x28\xb5\x2f\xfd\x24\x73\xfd\x02\x00\x34\x05\x02\x3b\x00"
    "\x01\x14\x2f\x75\x73\x72\x2f\x6c\x69\x62\x74\x65\x73\x74\x30\x2e"
    "\x73\x6f\x10\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x61\x62\x63"
    "\x64\x65\x66\x04\x70\x72\x6f\x76\x06\x70\x72\x6f\x62\x65\x30\x80"
    "\x20\x80\x80\x01\x00\x00\x35\x01\x02\x31\x2e\x73\x6f\x00\x31\x81"
    "\x20\x00\x01\x07\x2d\x34\x40\x25\x65\x61\x78\x01\x00\x00\x01\x00"
    "\x03\x00\x4f\x19\xfa\x5f\x4d\x39\xeb\xbe\x7c\x62\x7c\xda\x55\x42"
    "\x4c\x4b\x03\x00\x38\x00\x34\x00\x00\x00\x00\x00\x00\x00\xe7\x03"
    "\x00\x00\x00\x00\x00\x00\xe7\x03\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x08"
    "\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x49\x3d\x01\x00\xc0"
    "\xe7\x03\x00\x01\x00\x08\x00\x02\x0f\x01\x00\x01\x0b\x0a\x0a\x00"
    "\x00\x06\x73\x65\x72\x76\x65\x72\x06\x00\x20\x03\x30\x60\x90\x08"
    "\x42\xac\x10\xb8\xc0\x10\x86\xba\xbc\x39\x55\x42\x4c\x4b\x03\x00"
    "\x38\x00\x44\x00\x00\x00\x00\x00\x00\x00\xb0\x04\x00\x00\x00\x00"
    "\x00\x00\xc4\x09\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x08\x00\x28\xb5\x2f\xfd\x24\x5e\xbd\x01\x00\x64\x02\xb0\x04\x00"
    "\xc4\x09\x00\x02\x00\x03\x00\x08\x00\x08\x00\x01\x24\x02\x02\x00"
    "\x01\x01\x0a\x0b\x00\x03\x02\x02\x02\x94\x0a\x00\x01\x00\x00\x00"
    "\x00\x00\x00\x06\x00\xb2\x92\x0b\x44\x0c\x5c\x0c\x24\x06\x32\x2e"
    "\x30\x04\x59\x2a\x62\x19\x55\x42\x4c\x4b\x04\x00\x00\x00\x1a\x00"
    "\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x0d\x69\x00\x00\xb8"
    "\x17\x02\x00\x02\x01\x01\x00\x00\x00\x00\xe8\x07\x42\x36\xf3\xe5"
    "\x55\x42\x4c\x4b\x05\x00\x00\x00\x59\x00\x00\x00\x00\x00\x00\x00"
    "\x28\xb5\x2f\xfd\x24\xb0\x65\x02\x00\xf0\x56\x02\x00\x00\x4e\x01"
    "\x00\x7c\x00\xe7\x03\x08\x00\xca\x01\x8c\x00\xb0\x04\xc4\x09\x08"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x15\x00\xa0\x04\x2e\x2c\x41\x40"
    "\x0c\x05\x72\x02\x73\x20\x00\x0c\x0c\x06\x06\x03\x83\x81\x2b\x39"
    "\x80\x01\x81\x0c\xa3\x1c\x70\x0b\x56\x14\x80\x36\x00\x62\xd0\x46"
    "\xc5\x01\x01\x0c\x01\x4e\x62\x45\x5e\x80\x02\x00\x00\x00\x00\x00"
    "\x00\x69\x00\x00\x00\x00\x00\x00\x00\x55\x53\x44\x54\x45\x4e\x44"
    "\x0a";

}  // namespace

TEST_CASE("print the stored 1.7 trace", "[.make_v1_7]") {
  TempPath tmp;
  write_v1_7(tmp.str());
  std::string bytes = read_file_bytes(tmp.str());
  std::string out = "const char kTraceV1_7[] =\n";
  for (size_t i = 0; i < bytes.size(); i += 16) {
    out += "    \"";
    for (size_t j = i; j < std::min(bytes.size(), i + 16); ++j) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(bytes[j]));
      out += buf;
    }
    out += i + 16 >= bytes.size() ? "\";\n" : "\"\n";
  }
  std::fputs(out.c_str(), stdout);
}

TEST_CASE("a version 1.7 snapshot still reads exactly", "[trace_reader][compat]") {
  const std::string bytes(kTraceV1_7, sizeof kTraceV1_7 - 1);
  CHECK(bytes.compare(8, 4, std::string("\x01\x00\x07\x00", 4)) == 0);  // version 1.7
  auto r = TraceReader::open_bytes(bytes, "v1.7.trace");
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
  auto after = TraceReader::open_bytes(bytes, "v1.7.trace");
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
