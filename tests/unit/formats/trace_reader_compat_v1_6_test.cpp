// A trace written by the 1.6 writer, kept as bytes (trace_reader_compat_test.cpp
// keeps the older ones): pointer arguments (descriptor flag bit 4), the
// recording's CPUs in the metadata, and the summary's enabled_monotonic_ns
// (1.5). Every later reader must read it
// exactly so; if this test fails, the format changed incompatibly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

// free(mem) with a pointer parameter, malloc's return (a pointer), and a
// USDT probe whose 8-byte argument is no known pointer; one event each.
void write_v1_6(const std::string& path) {
  auto descriptor = [](const char* name, bool pointer) {
    ArgDescriptor d;
    d.spec = "8@%rdi";
    d.size = 8;
    d.location = usdt::ArgLocation::reg;
    d.source = usdt::ArgSource::sampled_register;
    d.name = name;
    d.is_pointer = pointer;
    return d;
  };
  std::vector<ProbeSite> sites(3);
  sites[0].id = 0;
  sites[0].kind = ProbeKind::uprobe;
  sites[0].path = "/usr/lib/libc.so.6";
  sites[0].provider = "uprobe";
  sites[0].name = "free";
  sites[0].args = {descriptor("mem", true)};
  sites[1].id = 1;
  sites[1].kind = ProbeKind::uretprobe;
  sites[1].path = "/usr/lib/libc.so.6";
  sites[1].provider = "uretprobe";
  sites[1].name = "malloc";
  sites[1].args = {descriptor("ret", true)};
  sites[2].id = 2;
  sites[2].path = "/usr/bin/app";
  sites[2].provider = "app";
  sites[2].name = "req";
  sites[2].args = {descriptor("", false)};
  WriterOptions options;
  options.flush_interval_ms = 0;
  TraceMetadata metadata = sample_metadata();
  metadata.cpus = {0, 1};
  auto w = TraceWriter::create(path, metadata, sites, options);
  REQUIRE(w.ok());
  for (uint32_t site = 0; site < 3; ++site) {
    Event e;
    e.time_ns = 2000 + 100 * site;
    e.site_id = site;
    e.pid = e.tid = 10;
    e.arg_count = 1;
    e.args[0] = 0x5601b8e6e2a0 + site;
    REQUIRE(w->append(e).ok());
  }
  TraceSummary summary;
  summary.end_monotonic_ns = 3000;
  summary.enabled_monotonic_ns = 1500;
  summary.events = 3;
  summary.events_per_site = {1, 1, 1};
  REQUIRE(w->finish(summary).ok());
}

const char kTraceV1_6[] =
    "\x55\x53\x44\x54\x54\x52\x43\x0a\x01\x00\x06\x00\x18\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x55\x42\x4c\x4b\x01\x00\x00\x00"
    "\x61\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x54\xa1\x02"
    "\x00\x08\x74\x65\x73\x74\x68\x6f\x73\x74\x0b\x36\x2e\x31\x38\x2e"
    "\x30\x2d\x74\x65\x73\x74\x06\x78\x38\x36\x5f\x36\x34\x80\x20\x20"
    "\x75\x73\x64\x74\x2d\x72\x65\x63\x6f\x72\x64\x20\x2d\x6f\x20\x74"
    "\x2e\x74\x72\x61\x63\x65\x20\x2d\x2d\x20\x2e\x2f\x70\x72\x6f\x67"
    "\x05\x30\x2e\x31\x2e\x30\xc0\x84\x3d\x80\x80\xa8\xb1\xe3\x9f\xe7"
    "\xcb\x17\x02\x00\x01\xea\x45\x07\x4a\x55\x42\x4c\x4b\x02\x00\x00"
    "\x00\x74\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x9a\x3d"
    "\x03\x00\xd2\xc5\x14\x19\x70\x4b\x75\x96\x12\x5a\x25\xa5\x90\x60"
    "\xfe\x7f\x7f\x4c\xfc\x6d\x20\xd4\x83\x94\x70\x1f\x93\x24\xc9\xf9"
    "\xe7\x63\x5b\x99\x93\x26\x73\x42\x0e\xa6\x04\x2f\x86\x64\x7b\xbd"
    "\xd6\x92\x33\xc9\x76\x0c\xe8\x15\x6e\x9d\xfe\x1f\x00\x18\xa3\x0b"
    "\x8b\x84\x79\xe6\x6e\x37\x90\x55\xaf\x39\x9a\x44\x9c\x07\xcf\x52"
    "\xac\xa1\x86\x11\x11\x4a\x1e\x34\x06\x00\x9e\xb2\x05\x2e\xe3\x15"
    "\x1a\xae\x2e\x9d\xac\xa8\x9c\x75\x5f\x3c\xca\x12\xfe\x55\x42\x4c"
    "\x4b\x03\x00\x38\x00\x55\x00\x00\x00\x00\x00\x00\x00\xd0\x07\x00"
    "\x00\x00\x00\x00\x00\x98\x08\x00\x00\x00\x00\x00\x00\x03\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x08\x00"
    "\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x78\x45\x02\x00\x04\x03"
    "\xd0\x07\x00\x98\x08\x00\x03\x00\x07\x08\x01\x3e\x03\x03\x00\x01"
    "\x02\x01\x0a\x0a\x00\x03\x15\x00\x64\x64\x00\x01\x02\x00\x01\x01"
    "\x01\xa0\xc5\x9b\xc7\x9b\xc0\x15\xa1\xa2\xc5\x9b\xc7\x9b\xc0\x15"
    "\x0a\x00\x2a\xe3\xc1\x2d\xc0\x30\x2e\xe4\xca\x02\xb0\x17\x93\x60"
    "\x40\x36\x20\xee\x02\x6e\xed\x8d\x32\x70\x55\x42\x4c\x4b\x04\x00"
    "\x00\x00\x1b\x00\x00\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x0e"
    "\x71\x00\x00\xb8\x17\x03\x00\x03\x01\x01\x01\x00\x00\x00\x00\xdc"
    "\x0b\x75\x81\x43\x8b\x55\x42\x4c\x4b\x05\x00\x00\x00\x39\x00\x00"
    "\x00\x00\x00\x00\x00\x28\xb5\x2f\xfd\x24\x68\x65\x01\x00\x98\xaa"
    "\x01\x00\x00\x0d\x01\x00\x9d\x00\xd0\x07\x00\x98\x08\x00\x03\x07"
    "\x08\x00\x0b\x00\x40\x96\x95\x7e\x2d\x84\x41\xb1\x60\x30\xb8\x01"
    "\xda\x00\x88\x41\x1b\x15\x07\x04\x30\x04\x87\x67\x53\xb9\xd5\x01"
    "\x00\x00\x00\x00\x00\x00\x49\x00\x00\x00\x00\x00\x00\x00\x55\x53"
    "\x44\x54\x45\x4e\x44\x0a";

}  // namespace

TEST_CASE("print the stored 1.6 trace", "[.make_v1_6]") {
  TempPath tmp;
  write_v1_6(tmp.str());
  std::fputs(c_array_text("kTraceV1_6", read_file_bytes(tmp.str())).c_str(), stdout);
}

TEST_CASE("a version 1.6 trace with pointer arguments still reads exactly",
          "[trace_reader][compat]") {
  const std::string bytes(kTraceV1_6, sizeof kTraceV1_6 - 1);
  REQUIRE(bytes.size() > 24);
  CHECK(bytes.compare(8, 4, std::string("\x01\x00\x06\x00", 4)) == 0);  // version 1.6
  auto r = TraceReader::open_bytes(bytes, "v1.6.trace");
  REQUIRE(r.ok());
  CHECK(r->metadata().cpus == std::vector<uint32_t>{0, 1});
  REQUIRE(r->sites().size() == 3);
  CHECK(r->sites()[0].args[0].is_pointer);
  CHECK(r->sites()[0].args[0].name == "mem");
  CHECK(r->sites()[1].args[0].is_pointer);
  CHECK_FALSE(r->sites()[2].args[0].is_pointer);
  REQUIRE(r->summary().has_value());
  CHECK(r->summary()->enabled_monotonic_ns == 1500);
  auto recs = read_all(*r);
  REQUIRE(recs.size() == 3);
  CHECK(describe(recs[0]) == "event t=2000 site=0 pid=10 tid=10 cpu=0 n=1 miss=0");
  CHECK(std::get<Event>(recs[0]).args[0] == 0x5601b8e6e2a0);
  CHECK(std::get<Event>(recs[2]).args[0] == 0x5601b8e6e2a2);
  CHECK(r->completeness().complete);
}

TEST_CASE("the pointer flag round-trips through the writer", "[trace_reader][compat]") {
  TempPath tmp;
  write_v1_6(tmp.str());
  auto r = TraceReader::open(tmp.str());
  REQUIRE(r.ok());
  CHECK(r->sites()[0].args[0].is_pointer);
  CHECK_FALSE(r->sites()[2].args[0].is_pointer);
}
