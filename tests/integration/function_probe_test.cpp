// Function probes recorded for real: uprobe:SYMBOL and
// uretprobe:SYMBOL names, recursion, longjmp and exceptions through probed
// functions, static functions of one name, C++ methods and templates, the
// same function name in two files. The programs are
// tests/integration/programs/itest_func*.c[pp], built at -O0 and -O2.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "integration_support.h"

using namespace usdt::itest;
using usdt::format::Event;

namespace {

int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

std::string report(const std::vector<std::string>& args) {
  std::vector<std::string> argv{USDT_REPORT_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The events column of a probe's row in the text summary, or -1.
long summary_count(const std::string& summary, const std::string& probe) {
  for (const std::string& line : lines(summary)) {
    if (line.rfind(probe + "  ", 0) != 0) continue;
    size_t digits = line.find_first_not_of(' ', probe.size());
    return digits == std::string::npos ? -1 : std::stol(line.substr(digits));
  }
  return -1;
}

// Runs usdt-record with these -e probes on argv; returns its result.
RunResult record(const std::string& out, const std::vector<std::string>& probes,
                 const std::vector<std::string>& command) {
  std::vector<std::string> argv{recorder(), "-o", out};
  for (const std::string& p : probes) {
    argv.push_back("-e");
    argv.push_back(p);
  }
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return run(argv);
}

}  // namespace

TEST_CASE("recursion to depth 10: every return pairs with its own entry", "[.root][fn_recursion]") {
  for (std::string level : {"O0", "O2"}) {
    SECTION(level) {
      std::string prog = program("itest_func_" + level);
      std::string out = temp_trace("fn_recursion_" + level);
      RunResult r = record(out, {"uprobe:" + prog + ":work", "uretprobe:" + prog + ":work"},
                           {prog, "recurse", "3"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      CHECK(has(r.err, "uprobe:work (itest_func_" + level + ")"));
      Trace t = read_trace(out);
      std::vector<Event> in = t.of("uprobe", "work");
      std::vector<Event> ret = t.of("uretprobe", "work");
      REQUIRE(in.size() == 33);
      REQUIRE(ret.size() == 33);
      CHECK(t.lost_count() == 0);
      for (size_t i = 0; i < 33; ++i) {
        CHECK(s(in[i].args[0]) == 10 - static_cast<int64_t>(i % 11));  // n = 10 .. 0
        CHECK(s(ret[i].args[0]) == static_cast<int64_t>(i % 11));      // work(n) returns n
      }
      REQUIRE(t.sites.size() == 2);
      CHECK(t.sites[0].path == prog);

      std::string json = report({"latency", "--function", "work", "--format", "json", out});
      CHECK(has(json, "\"start\":\"uprobe:work\",\"end\":\"uretprobe:work\""));
      CHECK(has(json, "\"count\":33"));
      CHECK(has(json, "\"unmatched_starts\":0"));
      CHECK(has(json, "\"unmatched_ends\":0"));
      std::string summary = report({out});
      CHECK(summary_count(summary, "uprobe:work") == 33);
      CHECK(summary_count(summary, "uretprobe:work") == 33);
      std::string dump = report({"dump", out});
      CHECK(has(dump, ": uprobe:work arg0=10 "));
      CHECK(has(dump, ": uretprobe:work arg0=10\n"));
      std::string jsonl = report({"dump", "--format", "jsonl", "--probe", "uretprobe:work", out});
      CHECK(lines(jsonl).size() == 33);
      CHECK(has(jsonl, "\"provider\":\"uretprobe\",\"name\":\"work\",\"args\":[10]"));
    }
  }
}

TEST_CASE("longjmp out of probed functions: abandoned entries are unmatched starts",
          "[.root][fn_longjmp]") {
  for (std::string level : {"O0", "O2"}) {
    SECTION(level) {
      std::string prog = program("itest_func_" + level);
      std::string out = temp_trace("fn_longjmp_" + level);
      RunResult r = record(out,
                           {"uprobe:" + prog + ":leap", "uretprobe:" + prog + ":leap",
                            "uprobe:" + prog + ":bounce", "uretprobe:" + prog + ":bounce"},
                           {prog, "longjmp"});
      INFO(r.err);
      // The kernel drops the return instances longjmp skipped: the program
      // runs on normally.
      REQUIRE(r.status == 0);
      Trace t = read_trace(out);
      CHECK(t.of("uprobe", "leap").size() == 5);
      CHECK(t.of("uretprobe", "leap").empty());
      CHECK(t.of("uprobe", "bounce").size() == 7);
      std::vector<Event> bounced = t.of("uretprobe", "bounce");
      REQUIRE(bounced.size() == 4);
      for (const Event& e : bounced) CHECK(s(e.args[0]) == 3);  // n = 3 returned, then its callers

      std::string leap = report({"latency", "--function", "leap", "--format", "json", out});
      CHECK(has(leap, "\"count\":0"));
      CHECK(has(leap, "\"unmatched_starts\":5"));
      CHECK(has(leap, "\"unmatched_ends\":0"));
      std::string bounce = report({"latency", "--function", "bounce", "--format", "json", out});
      CHECK(has(bounce, "\"count\":4"));
      CHECK(has(bounce, "\"unmatched_starts\":3"));
      CHECK(has(bounce, "\"unmatched_ends\":0"));
      // Each return pairs with its own call's entry (by the stack pointer):
      // the calls n = 3..6, not the abandoned n = 0..2.
      std::string by_n =
          report({"latency", "--function", "bounce", "--by", "arg0", "--format", "json", out});
      for (int n = 3; n <= 6; ++n) {
        INFO(by_n);
        CHECK(has(by_n, "{\"key\":" + std::to_string(n) + ",\"count\":1,"));
      }
      CHECK_FALSE(has(by_n, "{\"key\":0,"));
    }
  }
}

TEST_CASE("two static functions of one name are both attached and counted as one probe",
          "[.root][fn_static]") {
  for (std::string level : {"O0", "O2"}) {
    SECTION(level) {
      std::string prog = program("itest_func_" + level);
      RunResult list = run({recorder(), "-l", "-v", "uprobe:" + prog + ":helper"});
      INFO(list.err);
      REQUIRE(list.status == 0);
      // Without -v's parameter lines (tests/integration/dwarf_params_test.cpp).
      std::vector<std::string> listed;
      for (const std::string& line : lines(list.out)) {
        if (line.rfind("    ", 0) != 0 && line.rfind("  no parameters", 0) != 0) listed.push_back(line);
      }
      REQUIRE(listed.size() == 4);
      CHECK(listed[0] == "uprobe:" + prog + ":helper");
      CHECK(listed[2] == "uprobe:" + prog + ":helper");
      CHECK(has(listed[1], ", local (.symtab)"));
      CHECK(listed[1] != listed[3]);  // two addresses

      std::string out = temp_trace("fn_static_" + level);
      RunResult r = record(out, {"uprobe:" + prog + ":helper", "uretprobe:" + prog + ":helper"},
                           {prog, "helpers"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      Trace t = read_trace(out);
      REQUIRE(t.site_ids("uprobe", "helper").size() == 2);
      REQUIRE(t.site_ids("uretprobe", "helper").size() == 2);
      // helper of itest_func_a.c: x + 1 for x = 0..2; of itest_func_b.c:
      // 2x for x = 0..4, each with its own site.
      std::vector<Event> ret = t.of("uretprobe", "helper");
      REQUIRE(ret.size() == 8);
      std::vector<int64_t> values;
      for (const Event& e : ret) values.push_back(s(e.args[0]));
      CHECK(values == std::vector<int64_t>{1, 2, 3, 0, 2, 4, 6, 8});
      CHECK(ret[0].site_id != ret[3].site_id);
      std::string summary = report({out});
      CHECK(summary_count(summary, "uprobe:helper") == 8);
      CHECK(summary_count(summary, "uretprobe:helper") == 8);
      std::string json = report({"latency", "--function", "helper", "--format", "json", out});
      CHECK(has(json, "\"count\":8"));
    }
  }
}

TEST_CASE("C++ methods and templates are matched and shown demangled", "[.root][fn_cxx]") {
  for (std::string level : {"O0", "O2"}) {
    SECTION(level) {
      std::string prog = program("itest_func_cxx_" + level);
      RunResult list = run({recorder(), "-l", "uprobe:" + prog + ":ns::Server::handle*"});
      INFO(list.err);
      CHECK(lines(list.out) ==
            std::vector<std::string>{"uprobe:" + prog + ":ns::Server::handle(int)",
                                     "uprobe:" + prog + ":ns::Server::handle(char const*)"});

      std::string out = temp_trace("fn_cxx_" + level);
      RunResult r =
          record(out, {"uprobe:" + prog + ":ns::*", "uretprobe:" + prog + ":'ns::twice<int>'"},
                 {prog, "methods"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      Trace t = read_trace(out);
      CHECK(t.of("uprobe", "ns::Server::handle(int)").size() == 2);
      CHECK(t.of("uprobe", "ns::Server::handle(char const*)").size() == 3);
      CHECK(t.of("uprobe", "ns::twice<int>(int)").size() == 4);
      CHECK(t.of("uprobe", "ns::twice<double>(double)").size() == 1);
      CHECK(t.site_ids("uprobe", "ns::dive(int)").size() == 1);
      CHECK(t.of("uprobe", "ns::dive(int)").empty());
      std::vector<Event> twice = t.of("uretprobe", "ns::twice<int>(int)");
      REQUIRE(twice.size() == 4);
      for (size_t i = 0; i < 4; ++i) CHECK(s(twice[i].args[0]) == 2 * static_cast<int64_t>(i));

      std::string summary = report({out});
      CHECK(has(summary, "uprobe:ns::Server::handle(char const*)"));
      std::string json =
          report({"latency", "--function", "ns::twice<int>(int)", "--format", "json", out});
      CHECK(has(json, "\"count\":4"));
      std::string probe =
          report({"dump", "--probe", "uprobe:ns::Server::*", "--format", "csv", out});
      CHECK(lines(probe).size() == 1 + 5);
    }
  }
}

TEST_CASE("an exception thrown through a probed C++ function", "[.root][fn_throw]") {
  for (std::string level : {"O0", "O2"}) {
    SECTION(level) {
      std::string prog = program("itest_func_cxx_" + level);
      // Entry probes alone: the exception unwinds normally.
      std::string out = temp_trace("fn_throw_" + level);
      RunResult r = record(out, {"uprobe:" + prog + ":ns::dive"}, {prog, "throw"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      CHECK(r.out == "caught\n");
      Trace t = read_trace(out);
      std::vector<Event> dive = t.of("uprobe", "ns::dive(int)");
      REQUIRE(dive.size() == 5);
      std::vector<int64_t> n;
      for (const Event& e : dive) n.push_back(static_cast<int32_t>(e.args[0]));
      CHECK(n == std::vector<int64_t>{3, 2, 1, 0, -1});

      // With a uretprobe the unwinder meets the kernel's return trampoline,
      // which has no unwind information: std::terminate (kernel 6.18,
      // libgcc). The recorder warns before; the trace holds the 4 entries.
      std::string ret_out = temp_trace("fn_throw_ret_" + level);
      RunResult rr =
          record(ret_out, {"uprobe:" + prog + ":ns::dive", "uretprobe:" + prog + ":ns::dive"},
                 {prog, "throw"});
      INFO(rr.err);
      CHECK(has(rr.err, "warning: uretprobe:ns::dive(int) is a C++ function"));
      CHECK(rr.status == 128 + 6);  // SIGABRT
      Trace rt = read_trace(ret_out);
      CHECK(rt.of("uprobe", "ns::dive(int)").size() == 4);
      CHECK(rt.of("uretprobe", "ns::dive(int)").empty());
      std::string json =
          report({"latency", "--function", "ns::dive*", "--format", "json", ret_out});
      CHECK(has(json, "\"count\":0"));
      CHECK(has(json, "\"unmatched_starts\":4"));
    }
  }
}

TEST_CASE("one function name in two files: the summary shows each file", "[.root][fn_two_files]") {
  std::string o0 = program("itest_func_O0");
  std::string o2 = program("itest_func_O2");
  std::string out = temp_trace("fn_two_files");
  RunResult r =
      record(out, {"uprobe:" + o0 + ":work", "uprobe:" + o2 + ":work"}, {o0, "recurse", "1"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::string summary = report({out});
  INFO(summary);
  CHECK(summary_count(summary, "uprobe:work (" + o0 + ")") == 11);
  CHECK(summary_count(summary, "uprobe:work (" + o2 + ")") == 0);
  std::string json = report({"summary", "--format", "json", out});
  CHECK(
      has(json, "{\"provider\":\"uprobe\",\"name\":\"work\",\"path\":\"" + o0 + "\",\"count\":11"));
  CHECK(
      has(json, "{\"provider\":\"uprobe\",\"name\":\"work\",\"path\":\"" + o2 + "\",\"count\":0"));
  std::string dump = report({"dump", out});
  CHECK(has(dump, ": uprobe:work (" + o0 + ") arg0=10 "));
  // --probe selects both by name.
  std::string selected = report({"dump", "--format", "jsonl", "--probe", "uprobe:work", out});
  CHECK(lines(selected).size() == 11);
  CHECK(has(selected, "\"path\":\"" + o0 + "\""));
}

TEST_CASE("malloc and free of libc through .dynsym: exact counts and latency", "[.root][fn_libc]") {
  std::string prog = program("itest_func_O2");
  const std::vector<std::string> probes{"uprobe:libc.so.6:malloc", "uretprobe:libc.so.6:malloc",
                                        "uprobe:libc.so.6:free"};
  // libc's own calls at start-up and exit are the same in both runs.
  std::string base = temp_trace("fn_libc_0");
  RunResult r0 = record(base, probes, {prog, "malloc", "0"});
  INFO(r0.err);
  REQUIRE(r0.status == 0);
  std::string out = temp_trace("fn_libc_1000");
  RunResult r = record(out, probes, {prog, "malloc", "1000"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  Trace t0 = read_trace(base);
  Trace t = read_trace(out);
  REQUIRE(t.site_ids("uprobe", "malloc").size() == 1);
  CHECK(t.of("uprobe", "malloc").size() == t0.of("uprobe", "malloc").size() + 1000);
  CHECK(t.of("uretprobe", "malloc").size() == t0.of("uretprobe", "malloc").size() + 1000);
  CHECK(t.of("uprobe", "free").size() == t0.of("uprobe", "free").size() + 1000);
  std::string json = report({"latency", "--function", "malloc", "--format", "json", out});
  CHECK(has(json, "\"count\":" + std::to_string(t.of("uretprobe", "malloc").size()) + ","));
  CHECK(has(json, "\"unmatched_starts\":0"));
  CHECK(has(json, "\"unmatched_ends\":0"));
}

TEST_CASE("an IFUNC is refused with its implementations named, which record every call",
          "[.root][fn_ifunc]") {
  const std::string prog = FIXTURE_IFUNC;
  std::string refused = temp_trace("fn_ifunc_refused");
  RunResult r0 = record(refused, {"uprobe:" + prog + ":scale"}, {prog, "7"});
  CHECK(r0.status != 0);
  CHECK(has(r0.err, "is an IFUNC"));
  CHECK(has(r0.err, "hint: probe its implementations (scale_fast, scale_plain)"));

  // What the hint says: the resolver picked scale_fast, which ran 7 times.
  std::string out = temp_trace("fn_ifunc");
  RunResult r = record(out, {"uprobe:" + prog + ":*scale_*"}, {prog, "7"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == "42\n");
  Trace t = read_trace(out);
  CHECK(t.of("uprobe", "scale_fast").size() == 7);
  CHECK(t.of("uprobe", "scale_plain").empty());
}
