// A trace as the 1.8 writer made it, kept as bytes: every later reader must
// read it exactly so (progress blocks, a pid namespace process event, the
// armed time and the attach's wait in the summary). If this test fails, the
// format changed incompatibly: bump the major version (formats/FORMAT.md
// section 5) rather than edit these bytes. Also the 1.8 fields' codecs.
#include <catch2/catch.hpp>
#include <cstdio>

#include "formats/byte_cursor.h"
#include "formats/table_codec.h"
#include "formats/trace_follower.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

// The trace stored as kTraceV1_8 (below): two sites; a thread of pid 10 in
// another PID namespace (pid 1 tid 1 there, namespace 4026532001) with two
// events, flushed with a progress block (complete before 2000), then an
// event of pid 20 and a second progress block (before 3000); a summary with
// the armed time 1100 and a wait of 40. To store it again (only for a new
// minor version, never to make this test pass): run
// `trace_reader_compat_v1_8_test "[.make_v1_8]"` and paste its output.
void write_v1_8(const std::string& path) {
  auto w = TraceWriter::create(path, sample_metadata(), sample_sites(2));
  REQUIRE(w.ok());
  ProcessEvent ns;
  ns.time_ns = 1500;
  ns.kind = ProcessEventKind::pid_namespace;
  ns.pid = 10;
  ns.tid = 10;
  ns.ns_pid = 1;
  ns.ns_tid = 1;
  ns.pid_namespace = 4026532001u;
  REQUIRE(w->append(ns).ok());
  Event e;
  e.time_ns = 1500;
  e.pid = 10;
  e.tid = 10;
  e.site_id = 1;
  e.arg_count = 1;
  e.args[0] = 7;
  REQUIRE(w->append(e).ok());
  e.time_ns = 1600;
  e.args[0] = 8;
  REQUIRE(w->append(e).ok());
  w->note_complete_before(2000);
  REQUIRE(w->flush().ok());
  Event other;
  other.time_ns = 2500;
  other.pid = 20;
  other.tid = 20;
  REQUIRE(w->append(other).ok());
  w->note_complete_before(3000);
  REQUIRE(w->flush().ok());
  TraceSummary s;
  s.end_monotonic_ns = 3500;
  s.events = 3;
  s.events_per_site = {1, 2};
  s.enabled_monotonic_ns = 1000;
  s.armed_monotonic_ns = 1100;
  s.attach_wait_ns = 40;
  REQUIRE(w->finish(s).ok());
}

const char kTraceV1_8[] =
    "\x55\x53\x44\x54\x54\x52\x43\x0a\x01\x00\x08\x00\x18\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x55\x42\x4c\x4b\x01\x00\x00\x00"
    "\x70\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x63\x19\x03"
    "\x00\x08\x74\x65\x73\x74\x68\x6f\x73\x74\x0b\x36\x2e\x31\x38\x2e"
    "\x30\x2d\x74\x65\x73\x74\x06\x78\x38\x36\x5f\x36\x34\x80\x20\x20"
    "\x75\x73\x64\x74\x2d\x72\x65\x63\x6f\x72\x64\x20\x2d\x6f\x20\x74"
    "\x2e\x74\x72\x61\x63\x65\x20\x2d\x2d\x20\x2e\x2f\x70\x72\x6f\x67"
    "\x05\x30\x2e\x31\x2e\x30\xc0\x84\x3d\x80\x80\xa8\xb1\xe3\x9f\xe7"
    "\xcb\x17\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x0f\x00"
    "\x00\x00\x00\x00\x01\x35\x94\x78\x55\x42\x4c\x4b\x02\x00\x00\x00"
    "\x6c\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x73\xfd\x02"
    "\x00\x34\x05\x02\x3b\x00\x01\x14\x2f\x75\x73\x72\x2f\x6c\x69\x62"
    "\x74\x65\x73\x74\x30\x2e\x73\x6f\x10\x30\x31\x32\x33\x34\x35\x36"
    "\x37\x38\x39\x61\x62\x63\x64\x65\x66\x04\x70\x72\x6f\x76\x06\x70"
    "\x72\x6f\x62\x65\x30\x80\x20\x80\x80\x01\x00\x00\x35\x01\x02\x31"
    "\x2e\x73\x6f\x00\x31\x81\x20\x00\x01\x07\x2d\x34\x40\x25\x65\x61"
    "\x78\x01\x00\x00\x01\x00\x03\x00\x4f\x19\xfa\x5f\x4d\x39\xeb\xbe"
    "\x7c\x62\x7c\xda\x55\x42\x4c\x4b\x03\x00\x38\x00\x52\x00\x00\x00"
    "\x00\x00\x00\x00\xdc\x05\x00\x00\x00\x00\x00\x00\x40\x06\x00\x00"
    "\x00\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00"
    "\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd"
    "\x24\x6d\x2d\x02\x00\xf4\x02\xdc\x05\x00\x40\x06\x00\x02\x00\x00"
    "\x00\x01\x00\x02\x08\x00\x01\x24\x02\x01\x01\x01\x0a\x0a\x00\x02"
    "\x00\x64\x00\x01\x01\x07\x08\x02\x0d\x01\x00\x06\x09\x0a\x0a\x01"
    "\x01\xa1\x81\x80\x80\x0f\x09\x00\x40\x20\x30\x86\xbb\xbd\x92\x03"
    "\x18\xd8\x42\x18\x58\x08\x9a\x13\x80\x1b\x40\x4a\xc0\x58\x55\x42"
    "\x4c\x4b\x08\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00\x28\xb5"
    "\x2f\xfd\x24\x07\x39\x00\x00\xd0\x0f\x80\x94\xeb\xdc\x03\x97\x1d"
    "\x4e\xca\x55\x42\x4c\x4b\x03\x00\x38\x00\x33\x00\x00\x00\x00\x00"
    "\x00\x00\xc4\x09\x00\x00\x00\x00\x00\x00\xc4\x09\x00\x00\x00\x00"
    "\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x00"
    "\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x57"
    "\x35\x01\x00\x88\xc4\x09\x00\x01\x00\x80\x01\x1d\x01\x01\x00\x01"
    "\x14\x14\x00\x01\x00\x09\x00\x00\x05\x2e\xe0\x0a\x01\xb8\x37\x73"
    "\x07\x20\x00\x0c\x5c\xa1\x70\x81\x21\x67\x64\xf7\xc2\x55\x42\x4c"
    "\x4b\x08\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f"
    "\xfd\x24\x07\x39\x00\x00\xb8\x17\x80\x94\xeb\xdc\x03\xcd\x71\x67"
    "\xe9\x55\x42\x4c\x4b\x04\x00\x00\x00\x1d\x00\x00\x00\x00\x00\x00"
    "\x00\x28\xb5\x2f\xfd\x24\x10\x81\x00\x00\xac\x1b\x03\x00\x02\x01"
    "\x02\x00\x00\x00\x00\xe8\x07\xcc\x08\x28\x88\x67\x06\x35\x55\x42"
    "\x4c\x4b\x05\x00\x00\x00\x54\x00\x00\x00\x00\x00\x00\x00\x28\xb5"
    "\x2f\xfd\x24\xb0\x3d\x02\x00\xe0\x71\x02\x00\x00\x14\x01\x00\x9a"
    "\x00\xdc\x05\x00\x40\x06\x02\x00\x08\xd2\x01\x7b\x00\xc4\x09\x01"
    "\x00\x00\x80\x00\x14\x00\xe0\x10\xa0\x0f\xc8\x03\x2b\x8e\xc0\x01"
    "\x20\x31\xc0\x18\x0c\x5c\x21\x01\x0c\x04\xc9\xa0\x99\x51\x2e\x96"
    "\x12\x00\x6e\x80\x36\x00\x62\xd0\x46\xc5\x01\x01\x0c\x01\x1d\xe1"
    "\xd7\x7e\x9e\x02\x00\x00\x00\x00\x00\x00\x64\x00\x00\x00\x00\x00"
    "\x00\x00\x55\x53\x44\x54\x45\x4e\x44\x0a";

}  // namespace

TEST_CASE("print the stored 1.8 trace", "[.make_v1_8]") {
  TempPath tmp;
  write_v1_8(tmp.str());
  std::fputs(c_array_text("kTraceV1_8", read_file_bytes(tmp.str())).c_str(), stdout);
}

TEST_CASE("a version 1.8 trace with progress blocks and a pid namespace record still reads exactly",
          "[trace_reader][compat]") {
  const std::string bytes(kTraceV1_8, sizeof kTraceV1_8 - 1);
  CHECK(bytes.compare(8, 4, std::string("\x01\x00\x08\x00", 4)) == 0);  // version 1.8
  const size_t first_progress = bytes.find("UBLK\x08\x00");
  REQUIRE(first_progress != std::string::npos);
  CHECK(bytes.find("UBLK\x03\x00") < first_progress);  // after its chunk
  // From the index, and by a scan of the file cut before its summary.
  const size_t summary_at = bytes.find("UBLK\x04\x00");
  REQUIRE(summary_at != std::string::npos);
  for (bool footer : {true, false}) {
    INFO("footer " << footer);
    auto r = TraceReader::open_bytes(footer ? bytes : bytes.substr(0, summary_at), "v1.8.trace");
    REQUIRE(r.ok());
    StringKeeper strings;
    auto recs = read_all(*r, &strings);
    REQUIRE(recs.size() == 4);
    const ProcessEvent* ns = std::get_if<ProcessEvent>(&recs[0]);
    REQUIRE(ns != nullptr);
    CHECK(ns->time_ns == 1500);
    CHECK(ns->kind == ProcessEventKind::pid_namespace);
    CHECK(ns->pid == 10);
    CHECK(ns->tid == 10);
    CHECK(ns->ns_pid == 1);
    CHECK(ns->ns_tid == 1);
    CHECK(ns->pid_namespace == 4026532001u);
    CHECK(describe(recs[1]) == "event t=1500 site=1 pid=10 tid=10 cpu=0 n=1 miss=0");
    CHECK(describe(recs[2]) == "event t=1600 site=1 pid=10 tid=10 cpu=0 n=1 miss=0");
    CHECK(describe(recs[3]) == "event t=2500 site=0 pid=20 tid=20 cpu=0 n=0 miss=0");
    CHECK(r->diagnostics().chunks_read == 2);
    CHECK(r->diagnostics().records_skipped == 0);  // progress blocks are known
    CHECK(r->diagnostics().truncated == !footer);
    CHECK(r->summary().has_value() == footer);
    if (footer) {
      CHECK(r->diagnostics().problems.empty());
      CHECK(r->summary()->enabled_monotonic_ns == 1000);
      CHECK(r->summary()->armed_monotonic_ns == 1100);
      CHECK(r->summary()->attach_wait_ns == 40);
    }
  }
}

TEST_CASE("1.8: progress blocks and the summary's armed time decode exactly, cut is an error",
          "[table_codec]") {
  std::string body;
  encode_progress(body, Progress{123456789012, 250000000});
  auto p = decode_progress(body);
  REQUIRE(p.ok());
  CHECK(p->complete_before_ns == 123456789012u);
  CHECK(p->next_within_ns == 250000000u);
  for (size_t cut = 0; cut < body.size(); ++cut) CHECK_FALSE(decode_progress(body.substr(0, cut)).ok());

  TraceSummary s;
  s.end_monotonic_ns = 5000;
  s.enabled_monotonic_ns = 1000;
  s.armed_monotonic_ns = 1234567;
  s.attach_wait_ns = 76543;
  std::string summary;
  encode_summary(summary, s, 0);
  auto got = decode_summary(summary, 0);
  REQUIRE(got.ok());
  CHECK(got->armed_monotonic_ns == 1234567u);
  CHECK(got->attach_wait_ns == 76543u);
  // A 1.5 summary ends before them: both 0, not an error.
  std::string v1_5 = summary.substr(0, summary.size() - 6);  // 3 + 3 varint bytes
  got = decode_summary(v1_5, 0);
  REQUIRE(got.ok());
  CHECK(got->enabled_monotonic_ns == 1000);
  CHECK(got->armed_monotonic_ns == 0);
  CHECK(got->attach_wait_ns == 0);
  // Cut between them: an error, not a guess.
  for (size_t cut = v1_5.size() + 1; cut < summary.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_summary(summary.substr(0, cut), 0).ok());
  }
}
