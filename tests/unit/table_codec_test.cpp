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
  for (size_t cut = summary_v1_0(sample_summary()).size() + 1; cut < body.size(); ++cut) {
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
