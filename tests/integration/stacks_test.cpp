// Call stacks recorded for real (usdt-record -g) and named by usdt-report
// from the trace alone. The program tests/integration/programs/itest_stacks.c
// fires stacks:hit through main -> a -> b (N times) and main -> c -> b (M
// times), built at -O2 with frame pointers, without them, and stripped with
// its symbols in a separate .debug file. `stacks --folded` must give exactly
// N and M for the two paths (frames outside main, such as
// __libc_start_call_main, are cut off before comparing), in fp mode with
// frame pointers and in dwarf mode with and without them; also after the
// program is deleted and the trace moved; with frames in libc (qsort's
// callback) and in a dlopen()ed library; and attached with -p.
// itest_leaf has probes where no frame is set up (a leaf function, a
// function after a push, function entries): -g fp must name their callers
// as --call-graph dwarf does.
// Root only: hidden cases ([.root]) with a CTest entry each.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

constexpr int kPathA = 7;  // main -> a -> b
constexpr int kPathC = 4;  // main -> c -> b

std::string reporter() { return USDT_REPORT_PATH; }

// Mounts tracefs when it is absent, as cleanup_isolation_test.cpp does, so
// that the cases do not depend on which recorder mounted it.
void ensure_tracefs() {
  if (access("/sys/kernel/tracing/uprobe_events", R_OK) == 0) return;
  run({"/bin/mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"});
}

struct Recording {
  std::string trace;
  std::string err;
  std::string out;  // the traced command's
};

Recording record(const std::vector<std::string>& mode, const std::vector<std::string>& probes,
                 const std::vector<std::string>& command, const std::string& name) {
  ensure_tracefs();
  Recording rec{temp_trace(name), "", ""};
  std::vector<std::string> argv{recorder(), "-o", rec.trace};
  argv.insert(argv.end(), mode.begin(), mode.end());
  for (const std::string& p : probes) {
    argv.push_back("-e");
    argv.push_back(p);
  }
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  rec.err = r.err;
  rec.out = r.out;
  return rec;
}

std::string folded(const std::string& trace, const std::string& probe) {
  RunResult r = run({reporter(), "stacks", "--probe", probe, "--folded", trace});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// Folded lines "probe;f1;...;fn COUNT", summed by the frames from the last
// "main" on ("main;a;b"); a stack without main counts under its whole text.
std::map<std::string, long> paths_from_main(const std::string& text) {
  std::map<std::string, long> out;
  for (const std::string& line : lines(text)) {
    size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    long count = std::stol(line.substr(space + 1));
    std::vector<std::string> frames = split(line.substr(0, space), ';');
    size_t main_at = frames.size();
    for (size_t i = 0; i < frames.size(); ++i) {
      if (frames[i] == "main") main_at = i;
    }
    std::string path;
    if (main_at == frames.size()) {
      path = "(no main) " + line.substr(0, space);
    } else {
      for (size_t i = main_at; i < frames.size(); ++i)
        path += (path.empty() ? "" : ";") + frames[i];
    }
    out[path] += count;
  }
  return out;
}

void check_two_paths(const std::string& trace) {
  std::string text = folded(trace, "stacks:hit");
  INFO(text);
  std::map<std::string, long> expected{{"main;a;b", kPathA}, {"main;c;b", kPathC}};
  CHECK(paths_from_main(text) == expected);
}

std::vector<std::string> program_args() { return {std::to_string(kPathA), std::to_string(kPathC)}; }

std::vector<std::string> with_args(const std::string& program_path) {
  std::vector<std::string> argv{program_path};
  for (const std::string& a : program_args()) argv.push_back(a);
  return argv;
}

// The end report's stack line: every event of the run carries a stack.
void check_stack_line(const std::string& err, int events) {
  std::string line =
      std::to_string(events) + " of " + std::to_string(events) + " events carry a call stack";
  INFO(err);
  CHECK(err.find(line) != std::string::npos);
}

bool copy_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) return false;
  return chmod(to.c_str(), 0755) == 0;
}

// The dump's jsonl lines of one probe.
std::vector<std::string> dump_lines(const std::string& trace, const std::string& name) {
  RunResult r = run({reporter(), "dump", "--format", "jsonl", trace});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::vector<std::string> out;
  for (const std::string& line : lines(r.out)) {
    if (line.find("\"name\":\"" + name + "\"") != std::string::npos) out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("fp stacks of a program with frame pointers give the exact paths", "[.root][stacks_fp]") {
  Recording rec =
      record({"-g"}, {"stacks:hit"}, with_args(program("itest_stacks_fp")), "stacks_fp");
  check_two_paths(rec.trace);
  check_stack_line(rec.err, kPathA + kPathC);
  unlink(rec.trace.c_str());
}

// -g fp and --call-graph dwarf stacks of itest_leaf's probes: each probe's
// paths from main, the same in both modes.
void check_leaf_paths(const std::vector<std::string>& probes,
                      const std::map<std::string, std::map<std::string, long>>& expected,
                      const std::string& name) {
  long events = 0;
  for (const auto& [probe, paths] : expected) {
    for (const auto& [path, count] : paths) events += count;
  }
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"-g"}, std::vector<std::string>{"--call-graph", "dwarf"}}) {
    Recording rec = record(mode, probes, {program("itest_leaf")}, name);
    INFO("mode " << mode.back());
    for (const auto& [probe, paths] : expected) {
      std::string text = folded(rec.trace, probe);
      INFO(probe << ":\n" << text);
      CHECK(paths_from_main(text) == paths);
    }
    check_stack_line(rec.err, static_cast<int>(events));
    unlink(rec.trace.c_str());
  }
}

TEST_CASE("fp stacks name the caller of a probe where no frame is set up",
          "[.root][stacks_fp_leaf]") {
  // The program is what the case is about: no frame at b's probe (a leaf at
  // -O2 -fno-omit-frame-pointer), one push before pushed's.
  RunResult list = run({recorder(), "-l", "-v", program("itest_leaf")});
  REQUIRE(list.status == 0);
  INFO(list.out);
  const std::string leaf = list.out.substr(list.out.find(":leaf:hit\n"));
  CHECK(leaf.find("call frame: CFA %rsp+8, return address at CFA-8 (.eh_frame): no frame set "
                  "up, the caller's return address is at 0(%rsp)") != std::string::npos);
  const std::string pushed = list.out.substr(list.out.find(":leaf:pushed\n"));
  CHECK(pushed.find("call frame: CFA %rsp+16, return address at CFA-8 (.eh_frame): no frame "
                    "set up, the caller's return address is at 8(%rsp)") != std::string::npos);

  check_leaf_paths({"leaf:hit", "leaf:pushed"},
                   {{"leaf:hit", {{"main;a;b", 5}, {"main;c;b", 3}}},
                    {"leaf:pushed", {{"main;d;pushed", 4}}}},
                   "stacks_fp_leaf");
}

TEST_CASE("fp stacks of function-entry uprobes name the caller once",
          "[.root][stacks_fp_entry]") {
  // b starts with its probe's nop, sum with neither push %rbp nor endbr64:
  // the kernel's walk misses their callers. a and framed start with push
  // %rbp, which this kernel may take for an entry and name the caller of
  // itself: not twice (framed's caller is not main, which paths_from_main
  // would hide twice).
  const std::string path = program("itest_leaf");
  check_leaf_paths({"uprobe:" + path + ":a", "uprobe:" + path + ":b", "uprobe:" + path + ":sum",
                    "uprobe:" + path + ":framed"},
                   {{"uprobe:a", {{"main;a", 5}}},
                    {"uprobe:b", {{"main;a;b", 5}, {"main;c;b", 3}}},
                    {"uprobe:sum", {{"main;a;sum", 5}, {"main;c;sum", 3}}},
                    {"uprobe:framed", {{"main;d;framed", 4}}}},
                   "stacks_fp_entry");
}

TEST_CASE("fp,DEPTH cuts stacks and marks them truncated", "[.root][stacks_fp_depth]") {
  Recording rec = record({"--call-graph", "fp,2"}, {"stacks:hit"},
                         with_args(program("itest_stacks_fp")), "stacks_fp_depth");
  std::string text = folded(rec.trace, "stacks:hit");
  INFO(text);
  // Two frames, b and a or c, under [truncated].
  CHECK(text.find("stacks:hit;[truncated];a;b 7") != std::string::npos);
  CHECK(text.find("stacks:hit;[truncated];c;b 4") != std::string::npos);
  CHECK(rec.err.find("11 of 11 events carry a call stack, 11 truncated") != std::string::npos);
  unlink(rec.trace.c_str());
}

TEST_CASE("dwarf stacks of a program with frame pointers give the exact paths",
          "[.root][stacks_dwarf_fp]") {
  Recording rec = record({"--call-graph", "dwarf"}, {"stacks:hit"},
                         with_args(program("itest_stacks_fp")), "stacks_dwarf_fp");
  check_two_paths(rec.trace);
  check_stack_line(rec.err, kPathA + kPathC);
  unlink(rec.trace.c_str());
}

TEST_CASE("dwarf stacks of a program without frame pointers give the exact paths",
          "[.root][stacks_dwarf_nofp]") {
  // A size that is no multiple of a page: the BPF path's program is loaded
  // with the copy's size as a constant, and must load with any of them.
  Recording rec = record({"--call-graph", "dwarf,4104"}, {"stacks:hit"},
                         with_args(program("itest_stacks_nofp")), "stacks_dwarf_nofp");
  check_two_paths(rec.trace);
  check_stack_line(rec.err, kPathA + kPathC);
  unlink(rec.trace.c_str());
}

TEST_CASE("a stripped program's frames are named from its separate debug file",
          "[.root][stacks_stripped]") {
  Recording rec = record({"--call-graph", "dwarf"}, {"stacks:hit"},
                         with_args(program("itest_stacks_stripped")), "stacks_stripped");
  check_two_paths(rec.trace);
  unlink(rec.trace.c_str());
}

TEST_CASE("a trace shows the same frames after the program is deleted and the trace moved",
          "[.root][stacks_moved]") {
  char dir_template[] = "/tmp/usdt_itest_stacks_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string copy = dir + "/itest_stacks_copy";
  REQUIRE(copy_file(program("itest_stacks_fp"), copy));
  Recording rec = record({"-g"}, {"usdt:" + copy + ":stacks:hit"}, with_args(copy), "stacks_moved");
  const std::string before = folded(rec.trace, "stacks:hit");
  REQUIRE(unlink(copy.c_str()) == 0);
  const std::string moved = dir + "/elsewhere.trace";
  REQUIRE(std::rename(rec.trace.c_str(), moved.c_str()) == 0);
  const std::string after = folded(moved, "stacks:hit");
  CHECK(after == before);
  std::map<std::string, long> expected{{"main;a;b", kPathA}, {"main;c;b", kPathC}};
  CHECK(paths_from_main(after) == expected);
  unlink(moved.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("frames in libc and in a dlopen()ed library are recorded and named",
          "[.root][stacks_shared_lib]") {
  std::vector<std::string> command = with_args(program("itest_stacks_nofp"));
  command.push_back(FIXTURE_LIB);
  command.push_back("3");
  Recording rec =
      record({"--call-graph", "dwarf"},
             {"stacks:compare", "usdt:" + std::string(FIXTURE_LIB) + ":fixturelib:call"}, command,
             "stacks_shared_lib");
  // qsort's callback: compare_ints, then frames in libc, then sort_two and main.
  std::string text = folded(rec.trace, "stacks:compare");
  INFO(text);
  std::vector<std::string> compare_lines = lines(text);
  REQUIRE(!compare_lines.empty());
  for (const std::string& line : compare_lines) {
    CHECK(line.find(";main;sort_two;") != std::string::npos);
    CHECK(line.find(";compare_ints ") != std::string::npos);
  }
  std::vector<std::string> dumped = dump_lines(rec.trace, "compare");
  REQUIRE(!dumped.empty());
  for (const std::string& line : dumped) {
    INFO(line);
    CHECK(line.find("libc.so.6\"") != std::string::npos);
  }
  // The dlopen()ed library's probe: fixture_lib_call <- d <- main.
  std::string lib = folded(rec.trace, "fixturelib:call");
  INFO(lib);
  std::map<std::string, long> expected{{"main;d;fixture_lib_call", 3}};
  CHECK(paths_from_main(lib) == expected);
  unlink(rec.trace.c_str());
}

TEST_CASE("fp stacks of a process attached with -p", "[.root][stacks_attach]") {
  ensure_tracefs();
  setenv("ITEST_STACKS_WAIT", "1", 1);
  Process target = Process::start(with_args(program("itest_stacks_fp")), true, true, false);
  unsetenv("ITEST_STACKS_WAIT");
  REQUIRE(target.read_line() == std::optional<std::string>("ready"));
  const std::string trace = temp_trace("stacks_attach");
  Process recorder_process = Process::start(
      {recorder(), "-g", "-e", "stacks:hit", "-o", trace, "-p", std::to_string(target.pid())},
      false, false, true);
  REQUIRE(recorder_process.wait_for_stderr("Ctrl-C to end"));
  target.write_line("go");
  CHECK(target.wait() == 0);
  int status = recorder_process.wait();
  INFO(recorder_process.stderr_seen << recorder_process.read_rest(true));
  REQUIRE(status == 0);
  check_two_paths(trace);
  unlink(trace.c_str());
}

TEST_CASE("dwarf stacks with -a of a process that ran before the recording",
          "[.root][stacks_all]") {
  ensure_tracefs();
  // A copy of its own: -a records every process running the file, and other
  // cases run itest_stacks_nofp meanwhile.
  char dir_template[] = "/tmp/usdt_itest_stacks_all_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string copy = dir + "/itest_stacks_all";
  REQUIRE(copy_file(program("itest_stacks_nofp"), copy));
  setenv("ITEST_STACKS_WAIT", "1", 1);
  Process target = Process::start(with_args(copy), true, true, false);
  unsetenv("ITEST_STACKS_WAIT");
  REQUIRE(target.read_line() == std::optional<std::string>("ready"));
  const std::string trace = temp_trace("stacks_all");
  Process recorder_process =
      Process::start({recorder(), "--call-graph", "dwarf", "-a", "--duration", "2", "-e",
                      "usdt:" + copy + ":stacks:hit", "-o", trace},
                     false, false, true);
  REQUIRE(recorder_process.wait_for_stderr("Ctrl-C to end"));
  target.write_line("go");
  CHECK(target.wait() == 0);
  int status = recorder_process.wait();
  INFO(recorder_process.stderr_seen << recorder_process.read_rest(true));
  REQUIRE(status == 0);
  check_two_paths(trace);
  unlink(trace.c_str());
  unlink(copy.c_str());
  rmdir(dir.c_str());
}

// "lib1 0x7f..." in the traced program's output: the address.
uint64_t printed_base(const std::string& out, const std::string& label) {
  for (const std::string& line : lines(out)) {
    if (line.rfind(label + " ", 0) == 0) return std::stoull(line.substr(label.size() + 1), nullptr, 16);
  }
  return 0;
}

// The value of the first argument and the first frame's ip and object of a
// dump jsonl line.
struct FirstFrame {
  long arg0 = -1;
  uint64_t ip = 0;
  std::string object;
};

FirstFrame first_frame(const std::string& line) {
  FirstFrame f;
  size_t args = line.find("\"args\":[");
  if (args != std::string::npos) f.arg0 = std::stol(line.substr(args + 8));
  size_t ip = line.find("\"ip\":");
  if (ip != std::string::npos) f.ip = std::stoull(line.substr(ip + 5));
  size_t object = line.find("\"object\":\"", ip);
  if (object != std::string::npos) {
    size_t begin = object + 10;
    f.object = line.substr(begin, line.find('"', begin) - begin);
  }
  return f;
}

TEST_CASE("a library dlclose()d and another mapped at its address: frames of each time",
          "[.root][stacks_replaced_lib]") {
  std::vector<std::string> command = with_args(program("itest_stacks_nofp"));
  for (std::string a : {std::string(FIXTURE_LIB), std::string("3"),
                        std::string(ITEST_STACKS_LIB_B), std::string("2")}) {
    command.push_back(a);
  }
  Recording rec = record({"--call-graph", "dwarf"},
                         {"usdt:" + std::string(FIXTURE_LIB) + ":fixturelib:call",
                          "usdt:" + std::string(ITEST_STACKS_LIB_B) + ":fixturelib:call"},
                         command, "stacks_replaced_lib");
  INFO(rec.out);
  const uint64_t base1 = printed_base(rec.out, "lib1");
  const uint64_t base2 = printed_base(rec.out, "lib2");
  REQUIRE(base1 != 0);
  // The case is only the one it names when the second library took the
  // first one's addresses (glibc maps it into the hole the first left).
  REQUIRE(base2 == base1);
  std::vector<std::string> dumped = dump_lines(rec.trace, "call");
  REQUIRE(dumped.size() == 5);
  for (const std::string& line : dumped) {
    INFO(line);
    FirstFrame f = first_frame(line);
    CHECK(line.find("\"function\":\"fixture_lib_call\"") != std::string::npos);
    CHECK(f.ip >= base1);
    CHECK(f.ip < base1 + 0x10000);
    if (f.arg0 < 100) {
      CHECK(f.object == FIXTURE_LIB);
    } else {
      CHECK(f.object == ITEST_STACKS_LIB_B);
    }
  }
  std::map<std::string, long> expected{{"main;d;fixture_lib_call", 5}};
  const std::string text = folded(rec.trace, "fixturelib:call");
  INFO(text << rec.err);  // seen once in CI with two paths: which ones
  CHECK(paths_from_main(text) == expected);
  unlink(rec.trace.c_str());
}
