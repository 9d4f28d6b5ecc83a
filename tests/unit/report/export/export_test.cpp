// export --format chrome: pairs as slices, instants, strings of open starts.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("export pairs on an argument as async slices", "[export]") {
  MemoryTrace t;
  uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                          {site(0, "demo", "req_start", 1), site(1, "demo", "req_done", 1)});
  // Requests 1 and 2 overlap on thread 11 without nesting.
  t.add(f, ev(0, 1000001000, 10, 11, {1}));
  t.add(f, ev(0, 1000002000, 10, 11, {2}));
  t.add(f, ev(1, 1000003000, 10, 11, {1}));
  t.add(f, ev(1, 1000004000, 10, 11, {2}));
  std::string path = "/tmp/usdt_report_export_test_";
  path.append(std::to_string(::getpid())).append(".json");
  Output o = run({"export", "-o", path, "--start", "demo:req_start", "--end", "demo:req_done", "--key", "arg0"}, t);
  REQUIRE(o.code == 0);
  std::string json = read_file(path);
  std::remove(path.c_str());
  CHECK(json.find("\"ph\":\"X\"") == std::string::npos);
  // Named by its probes; the key, then the start's and the end's arguments.
  CHECK(json.find("{\"ph\":\"b\",\"name\":\"demo:req_start \u2192 req_done\",\"cat\":\"latency\",\"id\":\"0x1\","
                  "\"ts\":1.000,\"pid\":10,\"tid\":11,\"args\":{\"arg0\":1,\"start\":{\"arg0\":1},\"end\":{\"arg0\":1}}}") !=
        std::string::npos);
  CHECK(json.find("{\"ph\":\"e\",\"name\":\"demo:req_start \u2192 req_done\",\"cat\":\"latency\",\"id\":\"0x1\","
                  "\"ts\":3.000,\"pid\":10,\"tid\":11}") != std::string::npos);
  CHECK(json.find("\"id\":\"0x2\",\"ts\":2.000") != std::string::npos);
  CHECK(json.find("\"id\":\"0x2\",\"ts\":4.000") != std::string::npos);

  // Paired on tid, slices nest on their thread: complete events.
  MemoryTrace t2;
  fill_demo(t2);
  o = run({"export", "-o", path, "--start", "demo:req_start", "--end", "demo:req_done"}, t2);
  REQUIRE(o.code == 0);
  json = read_file(path);
  std::remove(path.c_str());
  CHECK(json.find("\"ph\":\"X\"") != std::string::npos);
  CHECK(json.find("\"ph\":\"b\"") == std::string::npos);
}

TEST_CASE("export to a file that cannot be created fails", "[export]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"export", "-o", "/nonexistent-dir/out.json"}, t);
  CHECK(o.code == 1);
  CHECK(o.err == "usdt-report: error: cannot create '/nonexistent-dir/out.json': No such file or directory\n");
}

TEST_CASE("export keeps the strings of starts left open", "[export][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  char path[] = "/tmp/usdt_report_strings_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  Output o =
      run({"export", "-o", path, "--start", "db:query", "--end", "db:done", "--key", "arg0"}, t);
  REQUIRE(o.code == 0);
  std::string json = read_file(path);
  std::remove(path);
  CHECK(json.find("\"args\":{\"arg0\":\"SELECT * FROM t\",\"key_truncated\":true,\"start\":{\"arg0\":\"SELECT * FROM "
                  "t\"") != std::string::npos);
  // The NULL query cannot pair on arg0: an instant; the "null" end too.
  CHECK(json.find("\"args\":{\"cpu\":1,\"arg0\":null,\"arg1\":4}") != std::string::npos);
  CHECK(json.find("\"args\":{\"cpu\":1,\"arg0\":\"null\"}") != std::string::npos);
}
