#include "formats/table_codec.h"

#include <catch2/catch.hpp>

using namespace usdt::format;

namespace {

using Drops = std::vector<std::pair<std::string, uint64_t>>;

TraceSummary sample_summary() {
  return TraceSummary{5000, 7, 2, {3, 4}, {0, 2}, {{"malformed", 3}, {"foreign_process", 120}}};
}

// The summary as a 1.0 writer wrote it: without the drops by cause.
std::string summary_v1_0(const TraceSummary& s) {
  std::string out;
  ByteWriter w(out);
  w.varint(s.end_monotonic_ns);
  w.varint(s.events);
  w.varint(s.lost);
  w.varint(s.events_per_site.size());
  for (uint64_t v : s.events_per_site) w.varint(v);
  w.varint(s.lost_per_site.size());
  for (uint64_t v : s.lost_per_site) w.varint(v);
  return out;
}

}  // namespace

TEST_CASE("the summary's drops by cause round-trip", "[table_codec]") {
  std::string body;
  encode_summary(body, sample_summary());
  auto s = decode_summary(body, 2);
  REQUIRE(s.ok());
  CHECK(s->end_monotonic_ns == 5000);
  CHECK(s->events_per_site == std::vector<uint64_t>{3, 4});
  CHECK(s->dropped == Drops{{"malformed", 3}, {"foreign_process", 120}});
}

TEST_CASE("a 1.0 summary has no drops", "[table_codec]") {
  auto s = decode_summary(summary_v1_0(sample_summary()), 2);
  REQUIRE(s.ok());
  CHECK(s->lost_per_site == std::vector<uint64_t>{0, 2});
  CHECK(s->dropped.empty());
}

TEST_CASE("fields a newer version appends to the summary are ignored", "[table_codec]") {
  std::string body;
  encode_summary(body, sample_summary());
  body += std::string("\x05\xff\xff\x00newer", 9);
  auto s = decode_summary(body, 2);
  REQUIRE(s.ok());
  CHECK(s->dropped == Drops{{"malformed", 3}, {"foreign_process", 120}});
}

TEST_CASE("damaged drops by cause are an error, never a huge allocation", "[table_codec]") {
  std::string body;
  encode_summary(body, sample_summary());
  // Cut inside the drops (a 1.1 to 1.3 summary ends before the 1.4 counts
  // of added sites, the 1.5 start and the 1.7 armed time and wait, the last
  // five bytes here).
  for (size_t cut = summary_v1_0(sample_summary()).size() + 1; cut < body.size() - 5; ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_summary(body.substr(0, cut), 2).ok());
  }
  std::string hostile = summary_v1_0(sample_summary());
  ByteWriter w(hostile);
  w.varint(~uint64_t{0} >> 1);  // a count no body can hold
  auto s = decode_summary(hostile, 2);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "summary's drops by cause are truncated or malformed");
}

TEST_CASE("string arguments and the kernel-read source round-trip in the probe table",
          "[table_codec]") {
  ProbeSite site;
  site.name = "p";
  ArgDescriptor number;
  number.spec = "-4@%eax";
  number.size = 4;
  number.is_signed = true;
  ArgDescriptor text;
  text.spec = "8@%rdi";
  text.is_string = true;
  text.source = usdt::ArgSource::kernel_read;
  site.args = {number, text};
  std::string body;
  encode_probe_table(body, {site});
  auto sites = decode_probe_table(body);
  REQUIRE(sites.ok());
  REQUIRE((*sites)[0].args.size() == 2);
  CHECK_FALSE((*sites)[0].args[0].is_string);
  CHECK((*sites)[0].args[0].is_signed);
  CHECK((*sites)[0].args[1].is_string);
  CHECK((*sites)[0].args[1].size == 8);
  CHECK((*sites)[0].args[1].source == usdt::ArgSource::kernel_read);
}

TEST_CASE("unknown descriptor flags and sources of a newer version are read safely",
          "[table_codec]") {
  ProbeSite site;
  ArgDescriptor a;
  a.spec = "8@%rdi";
  site.args = {a};
  std::string body;
  encode_probe_table(body, {site});
  // The descriptor's last four bytes (size, flags, location, source), then
  // the entry's name count (1.2, 0 here).
  body[body.size() - 4] = static_cast<char>(0x80 | 0x04);  // unknown bit 7, string
  body[body.size() - 2] = 9;                               // unknown source
  auto sites = decode_probe_table(body);
  REQUIRE(sites.ok());
  CHECK((*sites)[0].args[0].is_string);
  CHECK_FALSE((*sites)[0].args[0].is_signed);
  CHECK((*sites)[0].args[0].source == usdt::ArgSource::not_in_sample);
}

TEST_CASE("1.2: tracepoint sites and argument names round-trip", "[table_codec]") {
  ProbeSite site;
  site.kind = ProbeKind::tracepoint;
  site.provider = "sched";
  site.name = "sched_switch";
  site.file_offset = 372;
  ArgDescriptor comm;
  comm.spec = "field:char prev_comm[16]; offset:8; size:16; signed:0;";
  comm.is_string = true;
  comm.name = "prev_comm";
  ArgDescriptor pid;
  pid.spec = "field:pid_t prev_pid; offset:24; size:4; signed:1;";
  pid.size = 4;
  pid.is_signed = true;
  pid.name = "prev_pid";
  site.args = {comm, pid};
  ProbeSite unnamed;
  unnamed.id = 1;
  unnamed.args = {ArgDescriptor{}};
  std::string body;
  encode_probe_table(body, {site, unnamed});
  auto sites = decode_probe_table(body);
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 2);
  CHECK((*sites)[0].kind == ProbeKind::tracepoint);
  CHECK((*sites)[0].file_offset == 372);
  CHECK((*sites)[0].args[0].name == "prev_comm");
  CHECK((*sites)[0].args[1].name == "prev_pid");
  CHECK((*sites)[0].args[1].spec == pid.spec);
  CHECK((*sites)[1].args[0].name.empty());
}

TEST_CASE("argument names round-trip, and names breaking the rule are dropped", "[table_codec]") {
  ProbeSite site;
  for (const char* name : {"n", "", "client.port", "bad name", "arg7", "n", "arg6"}) {
    ArgDescriptor a;
    a.spec = "8@%rdi";
    a.name = name;
    site.args.push_back(a);
  }
  std::string body;
  encode_probe_table(body, {site});
  auto sites = decode_probe_table(body);
  REQUIRE(sites.ok());
  const std::vector<ArgDescriptor>& args = (*sites)[0].args;
  REQUIRE(args.size() == 7);
  CHECK(args[0].name == "n");
  CHECK(args[1].name.empty());
  CHECK(args[2].name == "client.port");
  CHECK(args[3].name.empty());  // a space
  CHECK(args[4].name.empty());  // arg7 names argument 4
  CHECK(args[5].name.empty());  // repeats argument 0's
  CHECK(args[6].name == "arg6");
}

TEST_CASE("a probe table entry of version 1.1 (no names) reads without names", "[table_codec]") {
  ProbeSite site;
  ArgDescriptor a;
  a.spec = "8@%rdi";
  site.args = {a, a};
  std::string body;
  encode_probe_table(body, {site});
  // Without names the 1.2 entry ends in a 0 name count: drop it and shorten
  // the entry's one-byte length, which is what a 1.1 writer wrote.
  REQUIRE(body.back() == 0);
  body.pop_back();
  REQUIRE(static_cast<uint8_t>(body[1]) < 0x80);
  body[1] = static_cast<char>(body[1] - 1);
  auto sites = decode_probe_table(body);
  REQUIRE(sites.ok());
  REQUIRE((*sites)[0].args.size() == 2);
  CHECK((*sites)[0].args[0].name.empty());
  CHECK((*sites)[0].args[1].name.empty());
}

TEST_CASE("1.4: an added probe sites block round-trips with its time and continued ids",
          "[table_codec]") {
  std::vector<ProbeSite> sites(2);
  sites[0].id = 5;
  sites[0].provider = "lib";
  sites[0].name = "init";
  sites[0].args.resize(1);
  sites[0].args[0].is_string = true;
  sites[0].args[0].name = "path";
  sites[1].id = 6;
  sites[1].kind = ProbeKind::uprobe;
  sites[1].name = "f";
  std::string body;
  encode_added_sites(body, sites, 123456789);

  auto got = decode_added_sites(body, 5, 100);
  REQUIRE(got.ok());
  REQUIRE(got->size() == 2);
  CHECK((*got)[0].id == 5);
  CHECK((*got)[0].active_since_ns == 123456789);
  CHECK((*got)[0].provider == "lib");
  CHECK((*got)[0].args[0].is_string);
  CHECK((*got)[0].args[0].name == "path");
  CHECK((*got)[1].id == 6);
  CHECK((*got)[1].kind == ProbeKind::uprobe);
  CHECK((*got)[1].active_since_ns == 123456789);

  // Ids that do not continue the sites known, more than the limit leaves,
  // no site at all, or a cut anywhere: an error, never a guess.
  CHECK_FALSE(decode_added_sites(body, 4, 100).ok());
  CHECK_FALSE(decode_added_sites(body, 6, 100).ok());
  CHECK_FALSE(decode_added_sites(body, 5, 1).ok());
  std::string empty;
  encode_added_sites(empty, {}, 1);
  CHECK_FALSE(decode_added_sites(empty, 0, 100).ok());
  for (size_t cut = 0; cut < body.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_added_sites(body.substr(0, cut), 5, 100).ok());
  }
}

TEST_CASE("1.4: a summary counts added sites after the drops, where a 1.3 reader stops",
          "[table_codec]") {
  TraceSummary s = sample_summary();
  s.events_per_site = {3, 4, 5, 6};  // sites 2 and 3 were added
  s.lost_per_site = {0, 2, 1};
  std::string body;
  encode_summary(body, s, 2);

  // What a 1.3 reader reads: the table's two sites and the drops.
  TraceSummary table_part = sample_summary();
  std::string v1_3;
  encode_summary(v1_3, table_part);
  v1_3.resize(v1_3.size() - 5);  // without the (empty) 1.4 lists, the 1.5 start, the 1.7 fields
  REQUIRE(body.compare(0, v1_3.size(), v1_3) == 0);

  auto got = decode_summary(body, 4);
  REQUIRE(got.ok());
  CHECK(got->events_per_site == std::vector<uint64_t>{3, 4, 5, 6});
  CHECK(got->lost_per_site == std::vector<uint64_t>{0, 2, 1});
  CHECK(got->dropped == Drops{{"malformed", 3}, {"foreign_process", 120}});

  // A reader that left out the block of site 3 keeps the counts it can place.
  got = decode_summary(body, 3);
  REQUIRE(got.ok());
  CHECK(got->events_per_site == std::vector<uint64_t>{3, 4, 5});
  CHECK(got->lost_per_site == std::vector<uint64_t>{0, 2, 1});

  // (A cut before the last three bytes, the 1.5 start and the 1.7 fields,
  // leaves a whole 1.4 summary.)
  for (size_t cut = v1_3.size() + 1; cut < body.size() - 3; ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_summary(body.substr(0, cut), 4).ok());
  }
}

TEST_CASE("1.5: the summary ends with the start of the recording's span; a 1.4 one has none",
          "[table_codec]") {
  TraceSummary s = sample_summary();
  s.enabled_monotonic_ns = 123456789012345;
  s.end_monotonic_ns = 123457789012345;
  std::string body;
  encode_summary(body, s, 2);
  auto got = decode_summary(body, 2);
  REQUIRE(got.ok());
  CHECK(got->enabled_monotonic_ns == 123456789012345u);
  CHECK(got->end_monotonic_ns == 123457789012345u);

  // The same summary as 1.4 wrote it: without the last field (nor the two
  // of 1.7 after it).
  std::string v1_4;
  s.enabled_monotonic_ns = 0;
  encode_summary(v1_4, s, 2);
  v1_4.resize(v1_4.size() - 3);
  got = decode_summary(v1_4, 2);
  REQUIRE(got.ok());
  CHECK(got->enabled_monotonic_ns == 0);
  CHECK(got->dropped == Drops{{"malformed", 3}, {"foreign_process", 120}});

  // Cut inside the start: an error, not a guess. (The last two bytes are
  // the 1.7 fields: without them, a whole 1.5 summary.)
  REQUIRE(body.size() - v1_4.size() > 3);
  for (size_t cut = v1_4.size() + 1; cut < body.size() - 2; ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_summary(body.substr(0, cut), 2).ok());
  }
}

TEST_CASE("1.4: the index lists added probe sites blocks after the object blocks",
          "[table_codec]") {
  ChunkIndex index;
  index.summary_offset = 900;
  index.chunks.push_back(IndexEntry{100, 200, ChunkHeader{}});
  index.objects = {300};
  index.added_sites = {50, 400};
  std::string body;
  encode_index(body, index);
  auto got = decode_index(body);
  REQUIRE(got.ok());
  CHECK(got->chunks.size() == 1);
  CHECK(got->objects == std::vector<uint64_t>{300});
  CHECK(got->added_sites == std::vector<uint64_t>{50, 400});

  // A 1.3 index ends after the object offsets: no added sites.
  std::string v1_3 = body.substr(0, body.size() - 8 * 3);
  got = decode_index(v1_3);
  REQUIRE(got.ok());
  CHECK(got->objects == std::vector<uint64_t>{300});
  CHECK(got->added_sites.empty());
  // A list cut short is an error.
  CHECK_FALSE(decode_index(body.substr(0, body.size() - 1)).ok());
}
