// usdt-report on damaged files: a real trace (written by the format writer)
// cut at every length and with bytes flipped. Every command must report
// what it can and say that the file is damaged (exit 1 with an error, or 0
// with a warning) unless its output is exactly the undamaged one; never
// crash (run under ASan+UBSan too).
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

struct Outcome {
  int code = 0;
  std::string out;  // stdout, or the file an export wrote
  std::string err;
};

std::string read_rest(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

Outcome run(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"usdt-report"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  Outcome o;
  o.code = usdt::report::report_main(static_cast<int>(argv.size()), argv.data(), out, err);
  o.out = read_rest(out);
  o.err = read_rest(err);
  return o;
}

// Whether every line of err is one of usdt-report's own: an error, a
// warning, a note (export's "wrote"), a hint, or the indented detail of one.
bool only_diagnostics(const std::string& err) {
  size_t at = 0;
  while (at < err.size()) {
    size_t end = err.find('\n', at);
    if (end == std::string::npos) return false;  // every line ends
    std::string_view line(err.data() + at, end - at);
    bool ours = line.rfind("usdt-report: ", 0) == 0 || line.rfind("hint: ", 0) == 0 ||
                line.rfind("  ", 0) == 0;
    if (!ours) return false;
    at = end + 1;
  }
  return true;
}

// Every command and format, on the trace at path (an export writes to
// export_path).
std::vector<std::vector<std::string>> all_commands(const std::string& path,
                                                   const std::string& export_path) {
  return {{"summary", path},
          {"summary", "--format", "json", path},
          {"dump", "--format", "jsonl", path},
          {"latency", "--start", "p:a", "--end", "p:b", "--key", "arg0", "--by", "tid", "--top",
           "3", path},
          {"hist", "--probe", "p:a", "--arg", "1", path},
          {"export", "-o", export_path, "--start", "p:a", "--end", "p:b", path},
          // string arguments
          {"dump", path},
          {"dump", "--format", "csv", path},
          {"latency", "--start", "p:s", "--end", "p:b", "--by", "arg0", "--top", "2", path},
          {"hist", "--probe", "p:s", "--arg", "1", "--by", "arg0", path},
          {"export", "-o", export_path, "--start", "p:s", "--end", "p:a", "--key", "arg0", path}};
}

Outcome run_command(const std::vector<std::string>& args, const std::string& export_path) {
  Outcome o = run(args);
  if (args[0] == "export") {
    std::ifstream in(export_path, std::ios::binary);
    o.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::remove(export_path.c_str());
  }
  return o;
}

// What every command prints for the undamaged trace at path.
std::vector<std::string> undamaged_outputs(const std::string& path) {
  std::string export_path = temp_path("out.json");
  std::vector<std::string> outputs;
  for (const auto& args : all_commands(path, export_path)) {
    Outcome o = run_command(args, export_path);
    REQUIRE(o.code == 0);
    outputs.push_back(o.out);
  }
  return outputs;
}

// A damaged file is said to be damaged: a failure with its error line, or
// what could be read with a warning, and nothing else on stderr. Where it
// says nothing, the damage lay where the command does not look, and its
// output is exactly that of the undamaged file: never a wrong number
// without a word. what: the damage, for the failure's message.
void check_all_commands(const std::string& path, const std::vector<std::string>& undamaged,
                        const std::string& what) {
  std::string export_path = temp_path("out.json");
  std::vector<std::vector<std::string>> commands = all_commands(path, export_path);
  for (size_t i = 0; i < commands.size(); ++i) {
    Outcome o = run_command(commands[i], export_path);
    INFO(commands[i][0] << " on " << what << ": exit " << o.code << ", stderr:\n" << o.err);
    CHECK((o.code == 0 || o.code == 1));
    CHECK(only_diagnostics(o.err));
    if (o.code == 1) {
      CHECK(o.err.find("usdt-report: error: ") != std::string::npos);
    } else if (o.err.find("usdt-report: warning: ") == std::string::npos) {
      CHECK(o.out == undamaged[i]);
    }
  }
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("every command survives a trace cut at every length", "[report_robustness]") {
  std::string full = write_sample_trace();
  std::string bytes = read_bytes(full);
  REQUIRE(bytes.size() > 100);
  std::vector<std::string> undamaged = undamaged_outputs(full);
  std::string cut_path = temp_path("cut.trace");
  for (size_t len = 0; len < bytes.size(); len += (len < 200 ? 1 : 7)) {
    write_bytes(cut_path, bytes.substr(0, len));
    check_all_commands(cut_path, undamaged, "the trace cut at " + std::to_string(len));
  }
  std::remove(cut_path.c_str());
  std::remove(full.c_str());
}

TEST_CASE("every command survives flipped bytes", "[report_robustness]") {
  std::string full = write_sample_trace();
  std::string bytes = read_bytes(full);
  std::vector<std::string> undamaged = undamaged_outputs(full);
  std::string bad_path = temp_path("flipped.trace");
  for (size_t at = 0; at < bytes.size(); at += 5) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0xff);
    write_bytes(bad_path, copy);
    check_all_commands(bad_path, undamaged,
                       "the trace with byte " + std::to_string(at) + " flipped");
  }
  std::remove(bad_path.c_str());
  std::remove(full.c_str());
}
