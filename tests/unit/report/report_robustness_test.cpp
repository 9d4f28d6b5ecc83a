// usdt-report on damaged files: a real trace (written by the format writer)
// cut at every length and with bytes flipped. Every command must report
// what it can and exit 0 or 1, never crash (run under ASan+UBSan too).
#include <unistd.h>

// GCC 12 reports false -Wrestrict errors inside libstdc++ string code
// (GCC bug 105329); report/CMakeLists.txt disables it for the same reason.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/trace_writer.h"
#include "report/report_main.h"

namespace fmt = usdt::format;

namespace {

std::string temp_path(const char* name) {
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "lit" + string.
  std::string path = "/tmp/usdt_report_robustness_";
  path.append(std::to_string(getpid())).append("_").append(name);
  return path;
}

std::string write_sample_trace() {
  std::string path = temp_path("full.trace");
  fmt::TraceMetadata m;
  m.hostname = "h";
  m.start_monotonic_ns = 1000;
  std::vector<fmt::ProbeSite> sites(3);
  for (uint32_t i = 0; i < 3; ++i) {
    sites[i].id = i;
    sites[i].provider = "p";
    sites[i].name = i == 0 ? "a" : i == 1 ? "b" : "s";
    sites[i].args.resize(2);
  }
  sites[2].args[0].is_string = true;  // p:s(string, number)
  fmt::WriterOptions options;
  options.chunk_bytes = 200;
  auto w = fmt::TraceWriter::create(path, m, sites, options);
  REQUIRE(w);
  fmt::ProcessEvent p;
  p.time_ns = 1000;
  p.pid = p.tid = 5;
  p.comm = "x";
  REQUIRE(w->append(p));
  for (uint64_t i = 0; i < 60; ++i) {
    fmt::Event e;
    e.time_ns = 2000 + i * 10 + (i % 3) * 7;
    e.pid = 5;
    e.tid = 5 + static_cast<uint32_t>(i % 2);
    e.site_id = static_cast<uint32_t>(i % 2);
    e.arg_count = 2;
    e.args[0] = i / 2;
    e.missing_mask = i % 5 == 0 ? 2 : 0;
    REQUIRE(w->append(e));
    if (i % 3 != 0) continue;
    // A string event: text, empty, cut, invalid UTF-8 or missing.
    static const char* const kTexts[] = {"SELECT 1", "", "a\"b,\nc", "caf\xe9", nullptr};
    const char* text = kTexts[i / 3 % 5];
    fmt::StringArg str{text == nullptr ? std::string_view() : std::string_view(text), i % 4 == 0};
    fmt::Event se = e;
    se.time_ns = e.time_ns + 1;
    se.site_id = 2;
    se.string_mask = 1;
    se.missing_mask = text == nullptr ? 1 : 0;
    se.args[0] = reinterpret_cast<uintptr_t>(&str);
    se.args[1] = i;
    REQUIRE(w->append(se));
  }
  fmt::LostEvent l;
  l.time_begin_ns = 2300;
  l.time_end_ns = 2400;
  l.count = 2;
  REQUIRE(w->append(l));
  fmt::TraceSummary s;
  s.end_monotonic_ns = 5000;
  s.events = 80;
  s.lost = 2;
  s.events_per_site = {30, 30, 20};
  s.lost_per_site = {0, 0, 0};
  s.dropped = {{"malformed", 1}, {"foreign_process", 4}};
  REQUIRE(w->finish(s));
  return path;
}

int run(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"usdt-report"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::FILE* sink = std::fopen("/dev/null", "w");
  int rc = usdt::report::report_main(static_cast<int>(argv.size()), argv.data(), sink, sink);
  std::fclose(sink);
  return rc;
}

void run_all_commands(const std::string& path) {
  std::string out = temp_path("out.json");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"summary", path},
           {"summary", "--format", "json", path},
           {"dump", "--format", "jsonl", path},
           {"latency", "--start", "p:a", "--end", "p:b", "--key", "arg0", "--by", "tid", "--top",
            "3", path},
           {"hist", "--probe", "p:a", "--arg", "1", path},
           {"export", "-o", out, "--start", "p:a", "--end", "p:b", path},
           // string arguments
           {"dump", path},
           {"dump", "--format", "csv", path},
           {"latency", "--start", "p:s", "--end", "p:b", "--by", "arg0", "--top", "2", path},
           {"hist", "--probe", "p:s", "--arg", "1", "--by", "arg0", path},
           {"export", "-o", out, "--start", "p:s", "--end", "p:a", "--key", "arg0", path}}) {
    int rc = run(args);
    INFO(args[0] << " on " << path);
    CHECK((rc == 0 || rc == 1));
  }
  std::remove(out.c_str());
}

}  // namespace

TEST_CASE("every command survives a trace cut at every length", "[report_robustness]") {
  std::string full = write_sample_trace();
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 100);
  CHECK(run({"summary", full}) == 0);
  std::string cut_path = temp_path("cut.trace");
  for (size_t len = 0; len < bytes.size(); len += (len < 200 ? 1 : 7)) {
    std::ofstream(cut_path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(len));
    run_all_commands(cut_path);
  }
  std::remove(cut_path.c_str());
  std::remove(full.c_str());
}

TEST_CASE("every command survives flipped bytes", "[report_robustness]") {
  std::string full = write_sample_trace();
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string bad_path = temp_path("flipped.trace");
  for (size_t at = 0; at < bytes.size(); at += 5) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0xff);
    std::ofstream(bad_path, std::ios::binary | std::ios::trunc).write(copy.data(), static_cast<std::streamsize>(copy.size()));
    run_all_commands(bad_path);
  }
  std::remove(bad_path.c_str());
  std::remove(full.c_str());
}
