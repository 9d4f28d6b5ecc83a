// Call stacks in the report commands (format 1.3): dump text/jsonl/csv,
// the stacks command, latency --slowest and the Chrome export's stackFrames,
// on in-memory traces with mmap events and object blocks.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "report/input/query.h"
#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

namespace {

fmt::ProbeSite site(uint32_t id, std::string name) {
  fmt::ProbeSite s;
  s.id = id;
  s.provider = "demo";
  s.name = std::move(name);
  return s;
}

fmt::TraceMetadata meta() {
  fmt::TraceMetadata m;
  m.hostname = "hostA";
  m.start_monotonic_ns = 1000000000;
  m.start_realtime_ns = 1700000000000000000ull;
  return m;
}

fmt::ProcessEvent mmap_event(uint64_t time, uint32_t pid, uint64_t address, uint64_t length,
                             std::string path, std::string build_id) {
  fmt::ProcessEvent p;
  p.time_ns = time;
  p.kind = fmt::ProcessEventKind::mmap;
  p.pid = pid;
  p.tid = pid;
  p.map_address = address;
  p.map_length = length;
  p.path = std::move(path);
  p.build_id = std::move(build_id);
  return p;
}

// The stacks' addresses must outlive the trace: tests keep them here.
struct Stacks {
  std::vector<std::unique_ptr<std::vector<uint64_t>>> kept;
  fmt::Event event(uint32_t site_id, uint64_t time, uint32_t pid, std::vector<uint64_t> frames,
                   bool truncated = false) {
    fmt::Event e;
    e.site_id = site_id;
    e.time_ns = time;
    e.pid = pid;
    e.tid = pid;
    kept.push_back(std::make_unique<std::vector<uint64_t>>(std::move(frames)));
    e.stack = kept.back()->data();
    e.stack_depth = static_cast<uint16_t>(kept.back()->size());
    e.stack_truncated = truncated;
    return e;
  }
};

// /app at 0x400000 (file offset 0): main 0x1000, a 0x1100, b 0x1200,
// c 0x1300, ns::probe_here(int) 0x1400; /lib/libz.so at 0x7f0000000000 without symbols.
constexpr uint64_t kApp = 0x400000;
constexpr uint64_t kLib = 0x7f0000000000;

uint32_t stack_file(MemoryTrace& t) {
  uint32_t f = t.add_file(meta(), {site(0, "hit"), site(1, "start"), site(2, "done")});
  fmt::ObjectTable app;
  app.build_id = "aa";
  app.path = "/app";
  app.symbols = {{0x1000, 0x100, "main"},
                 {0x1100, 0x100, "a"},
                 {0x1200, 0x100, "b"},
                 {0x1300, 0x100, "c"},
                 {0x1400, 0x100, "_ZN2ns10probe_hereEi"}};
  t.add_object(f, app);
  fmt::ProcessEvent comm;
  comm.time_ns = 1000000000;
  comm.pid = 10;
  comm.tid = 10;
  comm.comm = "app";
  t.add(f, comm);
  t.add(f, mmap_event(1000000000, 10, kApp, 0x10000, "/app", "aa"));
  t.add(f, mmap_event(1000000000, 10, kLib, 0x10000, "/lib/libz.so", "zz"));
  return f;
}

// Return addresses just after the calls: main+0x10 calls a, a+0x8 calls b...
std::vector<uint64_t> path_ab() {
  return {kApp + 0x1404, kApp + 0x1208, kApp + 0x1108, kApp + 0x1010};
}
std::vector<uint64_t> path_cb() {
  return {kApp + 0x1404, kApp + 0x1208, kApp + 0x1308, kApp + 0x1010};
}


}  // namespace

TEST_CASE("dump text prints the frames under their event", "[stacks]") {
  MemoryTrace t;
  Stacks s;
  uint32_t f = stack_file(t);
  t.add(f, s.event(0, 1000001000, 10, {kApp + 0x1404, kLib + 0x2345, 0x10}, true));
  t.add(f, s.event(0, 1000002000, 10, {}));
  Output o = run({"dump"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "             app 10/10 [000] 0.000001000: demo:hit\n"
        "                  401404 ns::probe_here(int)+0x4 (/app)\n"
        "            7f0000002345 libz.so+0x2345 (/lib/libz.so)\n"
        "                      10 [unknown] ([unknown])\n"
        "        (truncated)\n"
        "             app 10/10 [000] 0.000002000: demo:hit\n");
}

TEST_CASE("dump jsonl adds the stack array, csv a stack column", "[stacks]") {
  MemoryTrace t;
  Stacks s;
  uint32_t f = stack_file(t);
  t.add(f, s.event(0, 1000001000, 10, {kApp + 0x1404, kApp + 0x1010}, true));
  t.add(f, s.event(0, 1000002000, 10, {}));
  Output o = run({"dump", "--format", "jsonl"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"time_ns\":1000001000,\"pid\":10,\"tid\":10,\"cpu\":0,\"provider\":\"demo\",\"name\":"
        "\"hit\",\"args\":[],"
        "\"stack\":[{\"ip\":4199428,\"function\":\"ns::probe_here(int)\",\"offset\":4,\"object\":"
        "\"/app\"},"
        "{\"ip\":4198416,\"function\":\"main\",\"offset\":16,\"object\":\"/"
        "app\"}],\"stack_truncated\":true}\n"
        "{\"time_ns\":1000002000,\"pid\":10,\"tid\":10,\"cpu\":0,\"provider\":\"demo\",\"name\":"
        "\"hit\",\"args\":[]}\n");
  MemoryTrace t2;
  uint32_t f2 = stack_file(t2);
  t2.add(f2, s.event(0, 1000001000, 10, {kApp + 0x1404, kApp + 0x1010}));
  t2.add(f2, s.event(0, 1000002000, 10, {}));
  o = run({"dump", "--format", "csv"}, t2);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,stack\n"
        "1000001000,10,10,0,app,demo,hit,ns::probe_here(int)+0x4;main+0x10\n"
        "1000002000,10,10,0,app,demo,hit,\n");
}

TEST_CASE("a library replaced at the same address names the frames of each time", "[stacks]") {
  MemoryTrace t;
  Stacks s;
  uint32_t f = stack_file(t);
  fmt::ObjectTable other;
  other.build_id = "bb";
  other.path = "/lib/libother.so";
  other.symbols = {{0x2000, 0x1000, "other_fn"}};
  t.add_object(f, other);
  t.add(f, s.event(0, 1000001000, 10, {kLib + 0x2345}));
  t.add(f, mmap_event(1000001500, 10, kLib, 0x10000, "/lib/libother.so", "bb"));
  t.add(f, s.event(0, 1000002000, 10, {kLib + 0x2345}));
  Output o = run({"dump", "--format", "csv"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find(",hit,libz.so+0x2345\n") != std::string::npos);
  CHECK(o.out.find(",hit,other_fn+0x345\n") != std::string::npos);
}

// 5 events main->a->b->probe_here, 3 main->c->b->probe_here, one more of the
// first path through another call site in main, one cut short, one without
// a stack (of another probe).
void fill_paths(MemoryTrace& t, Stacks& s) {
  uint32_t f = stack_file(t);
  uint64_t time = 1000001000;
  for (int i = 0; i < 5; ++i) t.add(f, s.event(0, time++, 10, path_ab()));
  for (int i = 0; i < 3; ++i) t.add(f, s.event(0, time++, 10, path_cb()));
  // Another return address in main: the same frames by name.
  std::vector<uint64_t> other_site = path_ab();
  other_site.back() = kApp + 0x1020;
  t.add(f, s.event(0, time++, 10, other_site));
  t.add(f, s.event(0, time++, 10, {kApp + 0x1404, kApp + 0x1208}, true));
  t.add(f, s.event(1, time++, 10, {}));
}

TEST_CASE("stacks --folded counts each call path, probe first", "[stacks]") {
  Stacks s;
  MemoryTrace t;
  fill_paths(t, s);
  Output o = run({"stacks", "--folded"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "demo:hit;main;a;b;ns::probe_here(int) 6\n"
        "demo:hit;main;c;b;ns::probe_here(int) 3\n"
        "demo:hit;[truncated];b;ns::probe_here(int) 1\n");
  MemoryTrace t2;
  fill_paths(t2, s);
  o = run({"stacks", "--probe", "demo:hit"}, t2);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("10 events with a call stack, 3 distinct stacks\n") == 0);
  CHECK(o.out.find("         6  60.00%  demo:hit\n"
                   "        ns::probe_here(int) (/app)\n"
                   "        b (/app)\n"
                   "        a (/app)\n"
                   "        main (/app)\n") != std::string::npos);
  CHECK(o.out.find("        (truncated)\n") != std::string::npos);
  MemoryTrace t3;
  fill_paths(t3, s);
  o = run({"stacks", "--format", "json"}, t3);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{\"events\":10,\"events_without_stack\":1,\"stacks\":[{\"count\":6,\"probe\":"
                   "\"demo:hit\","
                   "\"frames\":[{\"function\":\"ns::probe_here(int)\",\"object\":\"/app\"},") == 0);
  CHECK(run({"stacks", "--folded", "--format", "json"}, t).code == 2);
}

TEST_CASE("stacks --folded merges paths whose names agree but objects differ", "[stacks]") {
  // b in /app and a function of the same name b in libz: two stacks in the
  // text output (the objects differ), one folded line with their sum.
  Stacks s;
  MemoryTrace t;
  uint32_t f = stack_file(t);
  fmt::ObjectTable lib;
  lib.build_id = "zz";
  lib.path = "/lib/libz.so";
  lib.symbols = {{0x2000, 0x100, "b"}};
  t.add_object(f, lib);
  uint64_t time = 1000001000;
  for (int i = 0; i < 2; ++i) t.add(f, s.event(0, time++, 10, {kApp + 0x1208, kApp + 0x1010}));
  t.add(f, s.event(0, time++, 10, {kLib + 0x2008, kApp + 0x1010}));
  Output o = run({"stacks", "--folded"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out == "demo:hit;main;b 3\n");
  MemoryTrace t2;
  uint32_t f2 = stack_file(t2);
  t2.add_object(f2, lib);
  time = 1000001000;
  for (int i = 0; i < 2; ++i) t2.add(f2, s.event(0, time++, 10, {kApp + 0x1208, kApp + 0x1010}));
  t2.add(f2, s.event(0, time++, 10, {kLib + 0x2008, kApp + 0x1010}));
  o = run({"stacks"}, t2);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("3 events with a call stack, 2 distinct stacks\n") == 0);
}

TEST_CASE("stacks on a trace without stacks fails with one line", "[stacks]") {
  MemoryTrace t;
  Stacks s;
  uint32_t f = t.add_file(meta(), {site(0, "hit")});
  t.add(f, s.event(0, 1000001000, 10, {}));
  Output o = run({"stacks"}, t);
  CHECK(o.code == 1);
  CHECK(o.out.empty());
  CHECK(o.err ==
        "usdt-report: error: the selected events have no call stacks (record them with usdt-record "
        "-g)\n");
}

void fill_pairs(MemoryTrace& t, Stacks& s) {
  uint32_t f = stack_file(t);
  t.add(f, s.event(1, 1000001000, 10, path_ab()));
  t.add(f, s.event(2, 1000002000, 10, {}));  // 1000 ns
  t.add(f, s.event(1, 1000003000, 10, path_cb()));
  t.add(f, s.event(2, 1000008000, 10, {kApp + 0x1010}));  // 5000 ns
}

TEST_CASE("latency --slowest shows the stacks of the slowest pairs", "[stacks]") {
  Stacks s;
  MemoryTrace t;
  fill_pairs(t, s);
  Output o = run({"latency", "--start", "demo:start", "--end", "demo:done", "--slowest", "1"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\nslowest 1 pair with their stacks:\n\n"
                   "  5000 ns at +0.000003000 pid/tid 10/10, tid 10\n"
                   "    start demo:start:\n"
                   "                  401404 ns::probe_here(int)+0x4 (/app)\n"
                   "                  401208 b+0x8 (/app)\n"
                   "                  401308 c+0x8 (/app)\n"
                   "                  401010 main+0x10 (/app)\n"
                   "    end demo:done:\n"
                   "                  401010 main+0x10 (/app)\n") != std::string::npos);
  CHECK(o.out.find("slowest 1 pair:") == std::string::npos);  // --top's table is not shown
  MemoryTrace t2;
  fill_pairs(t2, s);
  o = run({"latency", "--start", "demo:start", "--end", "demo:done", "--slowest", "2", "--format",
           "json"},
          t2);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"slowest\":[{\"duration_ns\":5000,") != std::string::npos);
  CHECK(o.out.find("\"start_event\":{\"probe\":\"demo:start\",\"stack\":[{\"ip\":4199428,") !=
        std::string::npos);
  CHECK(o.out.find("\"end_event\":{\"probe\":\"demo:done\",\"stack\":[{\"ip\":4198416,\"function\":"
                   "\"main\"") != std::string::npos);
  CHECK(o.out.find("{\"duration_ns\":1000,") != std::string::npos);
}

TEST_CASE("the Chrome export carries stackFrames and sf", "[stacks]") {
  MemoryTrace t;
  Stacks s;
  uint32_t f = stack_file(t);
  t.add(f, s.event(0, 1000001000, 10, path_ab()));
  t.add(f, s.event(0, 1000002000, 10, path_cb()));
  t.add(f, s.event(0, 1000003000, 10, {}));
  std::string path = "/tmp/usdt_report_stacks_test_";
  path.append(std::to_string(::getpid())).append(".json");
  Output o = run({"export", "-o", path}, t);
  REQUIRE(o.code == 0);
  std::string json = read_file(path);
  std::remove(path.c_str());
  // main (1) <- a (2) <- b (3) <- probe_here (4); main <- c (5) <- b (6) <- probe_here (7).
  CHECK(json.find("\"pid\":10,\"tid\":10,\"sf\":4,\"args\"") != std::string::npos);
  CHECK(json.find("\"pid\":10,\"tid\":10,\"sf\":7,\"args\"") != std::string::npos);
  CHECK(json.find("\"stackFrames\":{\"1\":{\"name\":\"main\",\"category\":\"/app\"},"
                  "\"2\":{\"name\":\"a\",\"category\":\"/app\",\"parent\":\"1\"},") !=
        std::string::npos);
  CHECK(json.find("\"5\":{\"name\":\"c\",\"category\":\"/app\",\"parent\":\"1\"}") !=
        std::string::npos);
  CHECK(json.find(
            "\"7\":{\"name\":\"ns::probe_here(int)\",\"category\":\"/app\",\"parent\":\"6\"}}}") !=
        std::string::npos);
  // Pairs: a slice has its start's stack as sf, its end's as esf.
  MemoryTrace t2;
  fill_pairs(t2, s);
  o = run({"export", "-o", path, "--start", "demo:start", "--end", "demo:done"}, t2);
  REQUIRE(o.code == 0);
  json = read_file(path);
  if (std::getenv("USDT_KEEP_CHROME_TEST") == nullptr) std::remove(path.c_str());
  CHECK(json.find(
            "\"ph\":\"X\",\"name\":\"demo:start \u2192 done\",\"ts\":1.000,\"dur\":1.000,"
            "\"pid\":10,\"tid\":10,\"sf\":4,\"args\"") != std::string::npos);
  CHECK(json.find("\"dur\":5.000,\"pid\":10,\"tid\":10,\"sf\":7,\"esf\":1,\"args\"") !=
        std::string::npos);
}

namespace {

// Keeps the hints a command gives the readers.
class HintedTrace : public MemoryTrace {
 public:
  void set_read_filter(uint32_t file, const fmt::ReadFilter& filter) override {
    if (hints.size() <= file) hints.resize(file + 1);
    hints[file] = filter;
  }
  std::vector<fmt::ReadFilter> hints;
};

}  // namespace

TEST_CASE("--pid and --tid keep the mappings of other threads and processes", "[stacks]") {
  // A child (pid 20) inherits its parent's mappings: --pid 20 must still
  // replay pid 10's mmap events.
  Stacks s;
  HintedTrace t;
  uint32_t f = stack_file(t);
  fmt::ProcessEvent fork;
  fork.time_ns = 1000000500;
  fork.kind = fmt::ProcessEventKind::fork;
  fork.pid = 20;
  fork.tid = 20;
  fork.parent_pid = 10;
  fork.parent_tid = 10;
  t.add(f, fork);
  t.add(f, s.event(0, 1000001000, 20, {kApp + 0x1010}));
  t.add(f, s.event(0, 1000002000, 10, {kApp + 0x1010}));
  Output o = run({"dump", "--format", "csv", "--pid", "20", "--tid", "20"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,stack\n"
        "1000001000,20,20,0,app,demo,hit,main+0x10\n");
  REQUIRE(t.hints.size() == 1);
  CHECK_FALSE(t.hints[0].pid);
  CHECK_FALSE(t.hints[0].tid);
  // Without stacks the hint keeps them.
  HintedTrace plain;
  plain.add_file(meta(), {site(0, "hit")});
  run({"dump", "--pid", "20"}, plain);
  REQUIRE(plain.hints.size() == 1);
  CHECK(plain.hints[0].pid == 20u);
}
