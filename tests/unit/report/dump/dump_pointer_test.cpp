// Pointer arguments (format 1.6, ArgDescriptor::is_pointer) in dump's
// output: hex in text, where an address reads as one; the number in JSON
// and CSV, for programs.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "report/command_line.h"
#include "report/report_main.h"
#include "tests/unit/support/memory_trace.h"

using namespace usdt::report;
namespace fmt = usdt::format;

namespace {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::string dump(const std::vector<std::string>& words, TraceInput& input) {
  std::vector<const char*> argv = {"usdt-report", "dump"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  argv.push_back("memory.trace");
  ParsedCommandLine p = parse_command_line(static_cast<int>(argv.size()), argv.data());
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(run_command(p.options, input, CommandIo{out, err}) == 0);
  std::string e = read_all(err);
  INFO(e);
  return read_all(out);
}

fmt::ArgDescriptor arg(const char* name, bool pointer, bool is_signed = false) {
  fmt::ArgDescriptor d;
  d.name = name;
  d.size = 8;
  d.is_pointer = pointer;
  d.is_signed = is_signed;
  d.location = usdt::ArgLocation::reg;
  d.source = usdt::ArgSource::sampled_register;
  return d;
}

fmt::Event event(uint32_t site, uint64_t time, std::vector<uint64_t> args, uint16_t missing = 0) {
  fmt::Event e;
  e.site_id = site;
  e.time_ns = time;
  e.pid = e.tid = 42;
  e.arg_count = static_cast<uint8_t>(args.size());
  for (size_t i = 0; i < args.size(); ++i) e.args[i] = args[i];
  e.missing_mask = missing;
  return e;
}

// free(mem) and malloc's return, typed from DWARF, and a USDT probe whose
// 8-byte argument is no known pointer.
MemoryTrace functions() {
  fmt::ProbeSite free_site;
  free_site.id = 0;
  free_site.kind = fmt::ProbeKind::uprobe;
  free_site.provider = "uprobe";
  free_site.name = "free";
  free_site.path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  free_site.args = {arg("mem", true)};
  fmt::ProbeSite ret_site = free_site;
  ret_site.id = 1;
  ret_site.kind = fmt::ProbeKind::uretprobe;
  ret_site.provider = "uretprobe";
  ret_site.name = "malloc";
  ret_site.args = {arg("ret", true)};
  fmt::ProbeSite usdt_site;
  usdt_site.id = 2;
  usdt_site.provider = "demo";
  usdt_site.name = "req_start";
  usdt_site.args = {arg("", false), arg("", false, true)};
  MemoryTrace t;
  fmt::TraceMetadata m;
  m.start_monotonic_ns = 1000;
  uint32_t f = t.add_file(m, {free_site, ret_site, usdt_site});
  t.add(f, event(1, 2000, {0x5601b8e6e2a0}));
  t.add(f, event(0, 3000, {0x5601b8e6e2a0}));
  t.add(f, event(0, 4000, {0}, 1));  // the pointer could not be read: null
  t.add(f, event(0, 5000, {0}));     // free(NULL)
  t.add(f, event(2, 6000, {94438011216544, static_cast<uint64_t>(-5)}));
  return t;
}

}  // namespace

TEST_CASE("pointer arguments print in hex in text", "[dump][pointer]") {
  MemoryTrace t = functions();
  const std::string text = dump({}, t);
  INFO(text);
  CHECK(text.find("uretprobe:malloc() = 0x5601b8e6e2a0\n") != std::string::npos);
  CHECK(text.find("uprobe:free(mem=0x5601b8e6e2a0)\n") != std::string::npos);
  CHECK(text.find("uprobe:free(mem=null)\n") != std::string::npos);
  CHECK(text.find("uprobe:free(mem=0x0)\n") != std::string::npos);
  // A number that is not known to be an address stays decimal.
  CHECK(text.find("demo:req_start arg0=94438011216544 arg1=-5\n") != std::string::npos);
}

TEST_CASE("JSON and CSV keep pointer arguments as numbers", "[dump][pointer]") {
  MemoryTrace t = functions();
  const std::string jsonl = dump({"--format", "jsonl"}, t);
  INFO(jsonl);
  CHECK(jsonl.find("\"name\":\"free\",\"args\":[94565397095072]") != std::string::npos);
  CHECK(jsonl.find("\"args\":[null]") != std::string::npos);
  MemoryTrace t2 = functions();
  const std::string csv = dump({"--format", "csv"}, t2);
  CHECK(csv.find(",94565397095072") != std::string::npos);
  CHECK(csv.find("0x") == std::string::npos);
}
