// End to end: a real recording of the bundled example read by the real
// usdt-report, and the trace's self-containment: once the traced program is
// deleted and the file moved elsewhere, every report prints the same.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/trace_reader.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

std::string report(const std::vector<std::string>& args) {
  std::vector<std::string> argv{USDT_REPORT_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

TEST_CASE("usdt-report on a real recording: exact counts and pairs; the trace needs nothing else",
          "[.root][report_e2e]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(temp_trace("e2e")).replace_extension(".d");
  fs::remove_all(dir);
  fs::create_directories(dir / "moved");
  // A private copy of the example, so that deleting it deletes the only copy
  // the recording could have looked at.
  fs::path program = dir / "request_demo";
  fs::copy_file(REQUEST_DEMO_PATH, program);
  fs::path trace = dir / "demo.trace";

  // 300 requests: ids 0..299, every 10th (id % 10 == 3) a cache miss.
  RunResult rec = run({recorder(), "-e", "demo:*", "-o", trace.string(), "--", program.string(),
                       "300"});
  INFO(rec.err);
  REQUIRE(rec.status == 0);

  std::string summary = report({"summary", "--format", "json", trace.string()});
  CHECK(summary.find("\"events\":630") != std::string::npos);
  CHECK(summary.find("\"lost\":0") != std::string::npos);
  CHECK(summary.find("\"truncated\":false") != std::string::npos);
  CHECK(summary.find("{\"provider\":\"demo\",\"name\":\"req_start\",\"count\":300") !=
        std::string::npos);
  CHECK(summary.find("{\"provider\":\"demo\",\"name\":\"cache_miss\",\"count\":30") !=
        std::string::npos);

  std::string latency = report({"latency", "--start", "demo:req_start", "--end", "demo:req_done",
                                "--key", "arg0", "--format", "json", trace.string()});
  CHECK(latency.find("\"count\":300") != std::string::npos);
  CHECK(latency.find("\"unmatched_starts\":0") != std::string::npos);
  CHECK(latency.find("\"unmatched_ends\":0") != std::string::npos);

  // Request 97 is the one that fails (status -1, a constant in the note);
  // every other req_done says 200. Argument 1 is the request's size.
  std::string dump = report({"dump", "--format", "jsonl", "--probe", "demo:req_done",
                             trace.string()});
  CHECK(lines(dump).size() == 300);
  CHECK(dump.find("\"args\":[97,") != std::string::npos);
  size_t at97 = dump.find("\"args\":[97,");
  REQUIRE(at97 != std::string::npos);
  uint32_t size97 = 256 + (97u * 7919u) % 4096u;
  CHECK(dump.substr(at97, dump.find('\n', at97) - at97) ==
        "\"args\":[97," + std::to_string(size97) + ",-1]}");

  const std::vector<std::vector<std::string>> commands = {
      {"summary"},
      {"dump", "--format", "text"},
      {"latency", "--start", "demo:req_start", "--end", "demo:req_done", "--key", "arg0"},
      {"hist", "--probe", "demo:req_start", "--arg", "1"},
  };
  std::vector<std::string> before;
  for (auto args : commands) {
    args.push_back(trace.string());
    before.push_back(report(args));
  }

  fs::remove(program);
  fs::path moved = dir / "moved" / "copy.trace";
  fs::copy_file(trace, moved);
  fs::remove(trace);
  for (size_t i = 0; i < commands.size(); ++i) {
    auto args = commands[i];
    args.push_back(moved.string());
    std::string after = report(args);
    // The summary names the file it read; nothing else may change.
    if (commands[i][0] == "summary") {
      size_t a = before[i].find('\n'), b = after.find('\n');
      CHECK(before[i].substr(a) == after.substr(b));
    } else {
      CHECK(before[i] == after);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "every report command prints the same with -j 1 and -j 3 on a real recording of many chunks",
    "[.root][report_jobs]") {
  // itest_strings: eight probes per iteration, three with strings of up to
  // 256 bytes, so the chunks (about 1 MiB before compression) are many.
  const std::string trace = temp_trace("jobs");
  RunResult rec =
      run({recorder(), "-q", "-e", "strings:*", "--string", "strings:ascii=arg0", "--string",
           "strings:long1000=arg0", "--string", "strings:two=arg0,arg1,arg2", "-o", trace, "--",
           program("itest_strings"), "8000"});
  INFO(rec.err);
  REQUIRE(rec.status == 0);
  {
    auto reader = usdt::format::TraceReader::open(trace);
    REQUIRE(reader.ok());
    REQUIRE(reader->chunk_headers().size() >= 4);  // else nothing is cut
  }
  const std::string out = trace + ".out";
  const std::vector<std::vector<std::string>> commands = {
      {"summary", "--format", "json"},
      {"dump"},
      {"dump", "--format", "jsonl"},
      {"dump", "--format", "csv", "--probe", "strings:two"},
      {"latency", "--start", "strings:ascii", "--end", "strings:two", "--format", "json"},
      {"latency", "--start", "strings:ascii", "--end", "strings:two", "--top", "5"},
      {"hist", "--probe", "strings:ascii", "--arg", "1"},
      {"export", "--format", "chrome", "-o", out},
      {"export", "--format", "chrome", "--start", "strings:ascii", "--end", "strings:two", "-o",
       out},
      {"export", "--format", "clickhouse-events", "-o", out},
      {"export", "--format", "clickhouse-pairs", "--start", "strings:ascii", "--end", "strings:two",
       "-o", out},
  };
  for (const std::vector<std::string>& cmd : commands) {
    std::string words;
    for (const std::string& w : cmd) words += w + " ";
    INFO(words);
    std::string file[2], text[2];
    for (int k = 0; k < 2; ++k) {
      std::vector<std::string> args = cmd;
      args.insert(args.end(), {"-j", k == 0 ? "1" : "3", trace});
      text[k] = report(args);
      if (cmd[0] == "export") file[k] = read_file(out);
    }
    CHECK(text[0].empty() == (cmd[0] == "export"));  // exports write to -o
    CHECK(text[0] == text[1]);
    CHECK(file[0] == file[1]);
    if (cmd.size() == 1) CHECK(std::count(text[0].begin(), text[0].end(), '\n') == 64000);
    if (cmd[0] == "export") CHECK(file[0].size() > 100000);
  }
  std::remove(out.c_str());
  std::remove(trace.c_str());
}
