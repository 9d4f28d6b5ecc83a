// dump: text, JSON lines and CSV of every event; strings, missing arguments, hosts.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("dump jsonl has exactly the documented keys", "[dump]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"dump", "--format", "jsonl", "--probe", "demo:req_start"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"time_ns\":1000001000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[1,-5]}\n"
        "{\"time_ns\":1000002000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[2,7]}\n"
        "{\"time_ns\":1000013000,\"pid\":10,\"tid\":12,\"cpu\":0,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[3,null]}\n");
}

TEST_CASE("dump text and csv", "[dump]") {
  MemoryTrace t;
  fill_demo(t);
  Output text = run({"dump", "--tid", "12"}, t);
  CHECK(text.out ==
        "          server 10/12 [000] 0.000012000: demo:req_done arg0=9\n"
        "          server 10/12 [000] 0.000013000: demo:req_start arg0=3 arg1=null\n");
  MemoryTrace t2;  // a MemoryTrace is read once, like a file
  fill_demo(t2);
  Output csv = run({"dump", "--format", "csv", "--since", "12us", "--until", "13us"}, t2);
  CHECK(csv.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0,arg1\n"
        "1000012000,10,12,0,server,demo,req_done,9,\n"
        "1000013000,10,12,0,server,demo,req_start,3,null\n");
}

TEST_CASE("csv tells a missing argument from one the probe does not have", "[dump]") {
  MemoryTrace t;
  fill_demo(t);
  Output csv = run({"dump", "--format", "csv", "--tid", "12"}, t);
  // req_done has one argument: its arg1 field is empty. req_start's arg1
  // was not recorded: null.
  CHECK(csv.out.find("demo,req_done,9,\n") != std::string::npos);
  CHECK(csv.out.find("demo,req_start,3,null\n") != std::string::npos);
  CHECK(csv.out.find("demo,req_start,3,\n") == std::string::npos);
}

TEST_CASE("files of different hosts are merged and labelled", "[dump]") {
  MemoryTrace t;
  // Host B's monotonic clock is 5 s ahead for the same wall-clock moment.
  uint32_t a = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull), {site(0, "demo", "tick", 1)});
  uint32_t b = t.add_file(meta("hostB", 6000000000, 1700000000000000000ull), {site(0, "demo", "tock", 1)});
  t.add(a, ev(0, 1000000300, 1, 1, {1}));
  t.add(b, ev(0, 6000000200, 1, 1, {2}));
  Output o = run({"dump", "--format", "jsonl"}, t);
  CHECK(o.out ==
        "{\"time_ns\":6000000200,\"host\":\"hostB\",\"pid\":1,\"tid\":1,\"cpu\":1,\"provider\":\"demo\",\"name\":\"tock\",\"args\":[2]}\n"
        "{\"time_ns\":1000000300,\"host\":\"hostA\",\"pid\":1,\"tid\":1,\"cpu\":1,\"provider\":\"demo\",\"name\":\"tick\",\"args\":[1]}\n");
}

TEST_CASE("dump text prints strings quoted and escaped", "[dump][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "               ? 10/11 [001] 0.000001000: db:query arg0=\"SELECT 1\" arg1=-1\n"
        "               ? 10/12 [000] 0.000002000: db:query arg0=\"a,\\\"b\\\"\\n\\xff\" arg1=2\n"
        "               ? 10/10 [000] 0.000002500: db:tick arg0=5\n"
        "               ? 10/11 [001] 0.000003000: db:done arg0=\"SELECT 1\"\n"
        "               ? 10/12 [000] 0.000005000: db:done arg0=\"a,\\\"b\\\"\\n\\xff\"\n"
        "               ? 10/11 [001] 0.000006000: db:query arg0=\"SELECT * FROM t\"... arg1=3\n"
        "               ? 10/11 [001] 0.000006500: db:done arg0=\"SELECT * FROM t\"...\n"
        "               ? 10/11 [001] 0.000007000: db:query arg0=null arg1=4\n"
        "               ? 10/11 [001] 0.000007100: db:done arg0=\"null\"\n");
}

TEST_CASE("dump jsonl gives strings as JSON strings and marks cut ones",
          "[dump][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump", "--format", "jsonl", "--probe", "db:query"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"time_ns\":1000001000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"SELECT 1\",-1]}\n"
        "{\"time_ns\":1000002000,\"pid\":10,\"tid\":12,\"cpu\":0,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"a,\\\"b\\\"\\n\\ufffd\",2]}\n"
        "{\"time_ns\":1000006000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"SELECT * FROM t\",3],\"truncated_args\":[0]}\n"
        "{\"time_ns\":1000007000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[null,4]}\n");
}

TEST_CASE("dump csv quotes strings: \"null\" is not null", "[dump][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump", "--format", "csv"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0,arg1,truncated_args\n"
        "1000001000,10,11,1,,db,query,\"SELECT 1\",-1,\n"
        "1000002000,10,12,0,,db,query,\"a,\"\"b\"\"\n\xef\xbf\xbd\",2,\n"
        "1000002500,10,10,0,,db,tick,5,,\n"
        "1000003000,10,11,1,,db,done,\"SELECT 1\",,\n"
        "1000005000,10,12,0,,db,done,\"a,\"\"b\"\"\n\xef\xbf\xbd\",,\n"
        "1000006000,10,11,1,,db,query,\"SELECT * FROM t\",3,0\n"
        "1000006500,10,11,1,,db,done,\"SELECT * FROM t\",,0\n"
        "1000007000,10,11,1,,db,query,null,4,\n"
        "1000007100,10,11,1,,db,done,\"null\",,\n");
  MemoryTrace t2;
  fill_strings(t2, s);
  Output ticks = run({"dump", "--format", "csv", "--probe", "db:tick"}, t2);
  CHECK(ticks.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0\n1000002500,10,10,0,,db,tick,5\n");
}
