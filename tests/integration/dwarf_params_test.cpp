// Function parameters from DWARF, recorded for real: the fixture programs of
// tests/fixtures/fixture_params*.c* (their comments give each call's values,
// i = 0, 1, 2) at -O0 and -O2, with DWARF in the file or through
// .gnu_debuglink, and without debug information. Values are checked by
// parameter name through the probe table's argument names; parameters no
// sample holds (floats, structs by value) must be null, never a guess.
// Root only: hidden cases ([.root]) with a CTest entry each.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "integration_support.h"
#include "params_fixture_paths.h"

using usdt::format::Event;
using usdt::format::ProbeKind;
using usdt::format::ProbeSite;
using namespace usdt::itest;

namespace {

constexpr int kCalls = 3;

struct Recorded {
  Trace trace;
  std::string err;
};

Recorded record(const std::string& program, const std::vector<std::string>& probes,
                const std::vector<std::string>& extra = {}) {
  const std::string out = temp_trace("dwarf_params");
  std::vector<std::string> argv{recorder(), "-o", out};
  for (const std::string& p : probes) {
    argv.push_back("-e");
    argv.push_back(p);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.push_back(program);
  RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  Recorded rec{read_trace(out), r.err};
  unlink(out.c_str());
  return rec;
}

// The site of a function probe, whatever provider the recorder names it by.
const ProbeSite& site_of(const Trace& t, ProbeKind kind, const std::string& symbol) {
  for (const ProbeSite& s : t.sites) {
    if (s.kind == kind && s.name == symbol) return s;
  }
  FAIL("no site for " << symbol);
  return t.sites.front();
}

// The events of one function probe, in time order.
std::vector<Event> events_of(const Trace& t, ProbeKind kind, const std::string& symbol) {
  const uint32_t id = site_of(t, kind, symbol).id;
  std::vector<Event> out;
  for (const Event& e : t.events) {
    if (e.site_id == id) out.push_back(e);
  }
  return out;
}

int index_of(const ProbeSite& site, const std::string& name) {
  for (size_t i = 0; i < site.args.size(); ++i) {
    if (site.args[i].name == name) return static_cast<int>(i);
  }
  FAIL("site " << site.name << " has no argument named " << name);
  return -1;
}

// Checks, for each call i, that parameter `name` is value(i) (as the raw
// 64-bit value the trace holds: sign-extended for signed types).
template <typename F>
void check_param(const Trace& t, const std::string& fn, const std::string& name, F value,
                 ProbeKind kind = ProbeKind::uprobe) {
  INFO(fn << " " << name);
  const ProbeSite& site = site_of(t, kind, fn);
  const int k = index_of(site, name);
  std::vector<Event> events = events_of(t, kind, fn);
  REQUIRE(events.size() == kCalls);
  for (int i = 0; i < kCalls; ++i) {
    INFO("call " << i);
    REQUIRE(events[i].has_arg(k));
    CHECK(events[i].args[k] == static_cast<uint64_t>(value(i)));
  }
}

void check_null(const Trace& t, const std::string& fn, const std::string& name) {
  INFO(fn << " " << name << " must be null");
  const ProbeSite& site = site_of(t, ProbeKind::uprobe, fn);
  const int k = index_of(site, name);
  std::vector<Event> events = events_of(t, ProbeKind::uprobe, fn);
  REQUIRE(events.size() == kCalls);
  for (const Event& e : events) CHECK_FALSE(e.has_arg(k));
}

std::string up(const std::string& program, const std::string& fn) {
  return "uprobe:" + program + ":" + fn;
}
std::string uret(const std::string& program, const std::string& fn) {
  return "uretprobe:" + program + ":" + fn;
}

void check_c_program(const std::string& program) {
  INFO(program);
  Recorded r =
      record(program,
             {up(program, "p_ints"), up(program, "p_longs"), up(program, "p_string"),
              up(program, "p_float_middle"), up(program, "p_small_struct"),
              up(program, "p_struct_no_room"), up(program, "p_mixed_struct"), up(program, "p_big"),
              up(program, "p_many"), up(program, "p_ret_big"), up(program, "p_void"),
              up(program, "p_variadic"), uret(program, "p_void"), uret(program, "p_ret_negative"),
              uret(program, "p_ret_ushort"), uret(program, "p_ret_double")});
  const Trace& t = r.trace;
  CHECK(r.err.find("no parameters from DWARF") == std::string::npos);
  check_param(t, "p_ints", "a", [](int i) { return int64_t{-5 - i}; });
  check_param(t, "p_ints", "b", [](int) { return 200; });
  check_param(t, "p_ints", "c", [](int) { return int64_t{-300}; });
  check_param(t, "p_ints", "d", [](int) { return 60000; });
  check_param(t, "p_ints", "e", [](int) { return int64_t{-70000}; });
  check_param(t, "p_ints", "f", [](int) { return 4000000000u; });
  check_param(t, "p_longs", "a", [](int) { return int64_t{-1234567890123}; });
  check_param(t, "p_longs", "b", [](int) { return 18000000000000000000ull; });
  check_param(t, "p_longs", "flag", [](int) { return 1; });
  check_param(t, "p_longs", "ch", [](int) { return int64_t{'x'}; });
  check_param(t, "p_longs", "col", [](int) { return 3; });
  check_param(t, "p_string", "count", [](int i) { return 7 + i; });
  check_param(t, "p_float_middle", "a", [](int) { return 11; });
  check_null(t, "p_float_middle", "d");
  check_null(t, "p_float_middle", "f");
  check_param(t, "p_float_middle", "b", [](int i) { return 22 + i; });
  check_param(t, "p_small_struct", "a", [](int) { return 1; });
  check_null(t, "p_small_struct", "p");
  check_param(t, "p_small_struct", "b", [](int i) { return 4 + i; });
  check_param(t, "p_struct_no_room", "e", [](int) { return 5; });
  check_null(t, "p_struct_no_room", "p");
  check_param(t, "p_struct_no_room", "f", [](int i) { return 8 + i; });
  check_null(t, "p_mixed_struct", "m");
  check_param(t, "p_mixed_struct", "a", [](int i) { return 10 + i; });
  check_param(t, "p_big", "a", [](int) { return 1; });
  check_null(t, "p_big", "b");
  check_param(t, "p_big", "c", [](int i) { return 6 + i; });
  check_param(t, "p_many", "a6", [](int) { return 6; });
  check_param(t, "p_many", "a7", [](int i) { return int64_t{-7 - i}; });
  check_param(t, "p_many", "a8", [](int) { return 8; });
  check_param(t, "p_many", "a9", [](int) { return int64_t{-9}; });
  check_param(t, "p_ret_big", "k", [](int i) { return 5 + i; });
  check_param(t, "p_ret_big", "m", [](int) { return 6; });
  check_param(t, "p_variadic", "n", [](int) { return 2; });
  REQUIRE(events_of(t, ProbeKind::uprobe, "p_void").size() == kCalls);
  CHECK(site_of(t, ProbeKind::uprobe, "p_void").args.empty());
  REQUIRE(events_of(t, ProbeKind::uretprobe, "p_void").size() == kCalls);
  CHECK(site_of(t, ProbeKind::uretprobe, "p_void").args.empty());
  check_param(
      t, "p_ret_negative", "ret", [](int i) { return int64_t{-3 - i}; }, ProbeKind::uretprobe);
  check_param(
      t, "p_ret_ushort", "ret", [](int i) { return 65535 - 3 - i; }, ProbeKind::uretprobe);
  std::vector<Event> dbl = events_of(t, ProbeKind::uretprobe, "p_ret_double");
  REQUIRE(dbl.size() == kCalls);
  for (const Event& e : dbl) CHECK_FALSE(e.has_arg(0));
}

}  // namespace

TEST_CASE("uprobe parameters by name at -O0 and -O2, DWARF in the file", "[.root][dwarf_params]") {
  check_c_program(FIXTURE_PARAMS_O0);
  check_c_program(FIXTURE_PARAMS_O2);
}

TEST_CASE("uprobe parameters through .gnu_debuglink", "[.root][dwarf_params_debuglink]") {
  check_c_program(FIXTURE_PARAMS_SPLIT);
}

TEST_CASE("a char * parameter taken as a string by its name", "[.root][dwarf_params_string]") {
  const std::string program = FIXTURE_PARAMS_O2;
  const std::string out = temp_trace("dwarf_params_string");
  RunResult r = run({recorder(), "-o", out, "-e", up(program, "p_string"), "--string",
                     up(program, "p_string") + "=name", "--", program});
  INFO(r.err);
  REQUIRE(r.status == 0);
  RunResult dump = run({USDT_REPORT_PATH, "dump", "--format", "jsonl", out});
  REQUIRE(dump.status == 0);
  std::vector<std::string> got = lines(dump.out);
  REQUIRE(got.size() == kCalls);
  for (int i = 0; i < kCalls; ++i) {
    CHECK(got[i].find("\"args\":[\"alpha\"," + std::to_string(7 + i) + "]") != std::string::npos);
  }
  // The text dump shows an entry as a call.
  RunResult text = run({USDT_REPORT_PATH, "dump", out});
  REQUIRE(text.status == 0);
  std::vector<std::string> shown = lines(text.out);
  REQUIRE(shown.size() == kCalls);
  for (int i = 0; i < kCalls; ++i) {
    CHECK(shown[i].find(":p_string(name=\"alpha\", count=" + std::to_string(7 + i) + ")") !=
          std::string::npos);
  }
  RunResult summary = run({USDT_REPORT_PATH, "summary", "--format", "json", out});
  CHECK(summary.out.find("\"args\":[{\"name\":\"name\",\"type\":\"string\"},"
                         "{\"name\":\"count\",\"type\":\"int32\"}]") != std::string::npos);
  // A name the function does not have is refused, naming the ones it has.
  RunResult bad = run({recorder(), "-o", out, "-e", up(program, "p_string"), "--string",
                       up(program, "p_string") + "=nope", "--", program});
  CHECK(bad.status != 0);
  CHECK(bad.err.find("no probe it matches has an argument named 'nope'") != std::string::npos);
  CHECK(bad.err.find("count name") != std::string::npos);
  // A parameter that is no pointer is refused too.
  RunResult number = run({recorder(), "-o", out, "-e", up(program, "p_string"), "--string",
                          up(program, "p_string") + "=count", "--", program});
  CHECK(number.status != 0);
  CHECK(number.err.find("'count' of p_string is 'int', not a pointer to a string") !=
        std::string::npos);
  unlink(out.c_str());
}

TEST_CASE("C++: this, a class passed by invisible reference, a template",
          "[.root][dwarf_params_cxx]") {
  for (const std::string program : {FIXTURE_PARAMS_CXX_O0, FIXTURE_PARAMS_CXX_O2}) {
    INFO(program);
    Recorded r = record(
        program, {up(program, "_ZN2ns7Counter3addEil"), up(program, "_ZN2ns7by_copyENS_7TrackedEi"),
                  up(program, "_ZN2ns5twiceIiEET_S1_"), uret(program, "_ZN2ns5twiceIiEET_S1_")});
    // Sites are named by the demangled symbols.
    const std::string add_fn = "ns::Counter::add(int, long)";
    const std::string copy_fn = "ns::by_copy(ns::Tracked, int)";
    const std::string twice_fn = "ns::twice<int>(int)";
    const Trace& t = r.trace;
    std::vector<Event> add = events_of(t, ProbeKind::uprobe, add_fn);
    REQUIRE(add.size() == kCalls);
    CHECK(index_of(site_of(t, ProbeKind::uprobe, add_fn), "this") == 0);
    for (const Event& e : add) CHECK((e.has_arg(0) && e.args[0] != 0));
    check_param(t, add_fn, "n", [](int i) { return 5 + i; });
    check_param(t, add_fn, "m", [](int) { return int64_t{-6}; });
    check_null(t, copy_fn, "t");
    check_param(t, copy_fn, "after", [](int i) { return 20 + i; });
    check_param(t, twice_fn, "x", [](int i) { return 21 + i; });
    check_param(
        t, twice_fn, "ret", [](int i) { return 2 * (21 + i); }, ProbeKind::uretprobe);
  }
}

TEST_CASE("without debug information: the ABI registers and one warning per probe",
          "[.root][dwarf_params_nodebug]") {
  const std::string program = FIXTURE_PARAMS_NODEBUG;
  Recorded r = record(program, {up(program, "p_string"), uret(program, "p_ret_negative")});
  const Trace& t = r.trace;
  const ProbeSite& site = site_of(t, ProbeKind::uprobe, "p_string");
  REQUIRE(site.args.size() == 6);
  CHECK(site.args[0].name.empty());
  // count = 7 + i is in %rsi (a 32-bit move clears the upper half).
  std::vector<Event> events = events_of(t, ProbeKind::uprobe, "p_string");
  REQUIRE(events.size() == kCalls);
  for (int i = 0; i < kCalls; ++i) CHECK(events[i].args[1] == static_cast<uint64_t>(7 + i));
  const std::string warning = "p_string (" + program + "): no parameters from DWARF, '" + program +
                              "' has no debug information";
  CHECK(r.err.find(warning) != std::string::npos);
  CHECK(r.err.find(warning, r.err.find(warning) + 1) == std::string::npos);  // once
  CHECK(r.err.find("p_ret_negative (" + program + "): no return type from DWARF") !=
        std::string::npos);
  CHECK(r.err.find("hint: install its debug information") != std::string::npos);
}

TEST_CASE("the text dump shows a return as a call with its value",
          "[.root][dwarf_params_return_text]") {
  const std::string program = FIXTURE_PARAMS_O2;
  const std::string out = temp_trace("dwarf_params_return_text");
  RunResult r = run({recorder(), "-o", out, "-e", uret(program, "p_ret_negative"), "-e",
                     uret(program, "p_void"), "--", program});
  INFO(r.err);
  REQUIRE(r.status == 0);
  RunResult text = run({USDT_REPORT_PATH, "dump", out});
  REQUIRE(text.status == 0);
  std::vector<std::string> shown = lines(text.out);
  REQUIRE(shown.size() == 2 * kCalls);
  // main() calls p_void before p_ret_negative.
  for (int i = 0; i < kCalls; ++i) {
    CHECK(shown[2 * i].find(":p_void()") != std::string::npos);
    CHECK(shown[2 * i + 1].find(":p_ret_negative() = " + std::to_string(-3 - i)) !=
          std::string::npos);
  }
  unlink(out.c_str());
}
