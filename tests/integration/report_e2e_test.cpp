// End to end: a real recording of the bundled example read by the real
// usdt-report, and the trace's self-containment: once the traced program is
// deleted and the file moved elsewhere, every report prints the same.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

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
