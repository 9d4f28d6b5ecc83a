// Runs the built usdt-record -l on the fixtures and on bad input, checking
// exit status, stdout and that errors are one "usdt-record: error:" line.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "fixture_paths.h"
#include "params_fixture_paths.h"

namespace {

struct Run {
  int status = -1;
  std::string out, err;
};

Run run(const std::string& args) {
  char err_path[] = "/tmp/usdt_list_test_err_XXXXXX";
  int fd = mkstemp(err_path);
  REQUIRE(fd >= 0);
  close(fd);
  std::string command = std::string(USDT_RECORD_BINARY) + " " + args + " 2>" + err_path;
  Run r;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  std::ostringstream s;
  s << in.rdbuf();
  r.err = s.str();
  unlink(err_path);
  return r;
}

size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

void require_one_error(const Run& r, int status) {
  INFO("stderr: " << r.err);
  CHECK(r.status == status);
  CHECK(count_lines(r.err) == 1);
  CHECK(starts_with(r.err, "usdt-record: error: "));
}

// A fixture process blocked in --wait until we close its stdin.
class WaitingFixture {
 public:
  explicit WaitingFixture(const char* path) {
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(path, path, "1", "--wait", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    char ready[6] = {};
    REQUIRE(read(out[0], ready, 6) == 6);  // "ready\n": the libraries are mapped
    close(out[0]);
  }
  ~WaitingFixture() {
    close(stdin_);
    int status;
    waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
};

}  // namespace

TEST_CASE("lists a fixture's probes", "[list_command]") {
  auto r = run("-l " FIXTURE_PROBES_PIE_O2);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(count_lines(r.out) == 18);
  CHECK(r.out.find("usdt:" FIXTURE_PROBES_PIE_O2 ":fixture:args0\n") != std::string::npos);
  CHECK(r.out.find("usdt:" FIXTURE_PROBES_PIE_O2 ":fixture:guarded\n") != std::string::npos);
  CHECK(starts_with(r.out, "usdt:" FIXTURE_PROBES_PIE_O2 ":fixture:"));
}

TEST_CASE("verbose listing shows locations and arguments", "[list_command]") {
  auto r = run("-l -v 'fixture:constants' 'fixture:multi' 'fixture:guarded' " FIXTURE_PROBES_NOPIE_O2);
  CHECK(r.status == 0);
  INFO(r.out);
  CHECK(r.out.find("usdt:" FIXTURE_PROBES_NOPIE_O2 ":fixture:constants\n") != std::string::npos);
  CHECK(r.out.find("    arg0: -4@$42  int32 constant 42  [constant]\n") != std::string::npos);
  CHECK(r.out.find("    arg3: 1@$-1  uint8 constant 255  [constant]\n") != std::string::npos);
  CHECK(r.out.find("  location 1/2: address 0x") != std::string::npos);
  CHECK(r.out.find("  location 2/2: address 0x") != std::string::npos);
  CHECK(r.out.find("semaphore none") != std::string::npos);
  CHECK(r.out.find(", semaphore 0x") != std::string::npos);
  CHECK(r.out.find(" (file offset 0x") != std::string::npos);
  // What -g fp does there, from the CFI (-O2 without frame pointers: no
  // frame set up at any probe of this program).
  CHECK(r.out.find("    call frame: CFA %rsp+") != std::string::npos);
  CHECK(r.out.find("(.eh_frame): no frame set up, the caller's return address is at ") !=
        std::string::npos);
  CHECK(r.out.find("fixture:args") == std::string::npos);
  // Three probes, multi with two locations.
  size_t probe_lines = 0;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) probe_lines += starts_with(line, "usdt:");
  CHECK(probe_lines == 3);
}

TEST_CASE("verbose listing shows --string arguments as the kernel's string reads",
          "[list_command]") {
  auto plain = run("-l -v 'fixture:args2' " FIXTURE_PROBES_PIE_O2);
  CHECK(plain.out.find("    arg1: -8@%rax  int64 in %rax  [sampled register]\n") !=
        std::string::npos);
  auto r = run("-l -v --string 'fixture:args2=arg1' 'fixture:args2' " FIXTURE_PROBES_PIE_O2);
  CHECK(r.status == 0);
  INFO(r.out);
  CHECK(r.out.find("    arg0: -8@%rdi  int64 in %rdi  [sampled register]\n") != std::string::npos);
  CHECK(r.out.find("    arg1: -8@%rax  int64 in %rax  [string read by the kernel: "
                   "a1=+0(%ax):string]\n") != std::string::npos);
}

TEST_CASE("verbose listing of a function takes --string by parameter name and by number",
          "[list_command]") {
  const std::string f = FIXTURE_PARAMS_O2;
  auto plain = run("-l -v 'uprobe:" + f + ":p_string'");
  CHECK(plain.out.find("    arg0 name (const char *): 8@%rdi  uint64 in %rdi  [sampled register]\n") !=
        std::string::npos);
  for (const std::string& which : {std::string("name"), std::string("arg0")}) {
    auto r = run("-l -v --string 'uprobe:" + f + ":p_string=" + which + "' 'uprobe:" + f + ":p_string'");
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(r.out.find("    arg0 name (const char *): 8@%rdi  uint64 in %rdi  [string read by the "
                     "kernel: a0=+0(%di):string]\n") != std::string::npos);
    CHECK(r.out.find("    arg1 count (int): -4@%esi  int32 in %esi  [sampled register]\n") !=
          std::string::npos);
  }
}

TEST_CASE("patterns through -e and several targets", "[list_command]") {
  auto r = run("-l -e 'fixturelib:*' " FIXTURE_LIB " " FIXTURE_USELIB);
  CHECK(r.status == 0);
  CHECK(r.out == "usdt:" FIXTURE_LIB ":fixturelib:call\nusdt:" FIXTURE_LIB ":fixturelib:loaded\n");
  auto none = run("-l 'nomatch:*' " FIXTURE_LIB);
  CHECK(none.status == 0);
  CHECK(none.out.empty());
  CHECK(none.err == "usdt-record: note: no probe matches the given patterns\n");
}

TEST_CASE("a library by name", "[list_command]") {
  auto r = run("-l libstdc++");
  CHECK(r.status == 0);
  // By its canonical path (libstdc++.so.6 is a link to libstdc++.so.6.0.N).
  INFO(r.out);
  CHECK(r.out.find("/libstdc++.so.6") != std::string::npos);
  CHECK(r.out.find(":libstdcxx:throw\n") != std::string::npos);
}

TEST_CASE("bad targets: one error line each", "[list_command]") {
  require_one_error(run("-l /nonexistent/file"), 1);
  CHECK(run("-l /nonexistent/file").err ==
        "usdt-record: error: cannot open '/nonexistent/file': No such file or directory\n");
  require_one_error(run("-l /etc/hostname"), 1);
  CHECK(run("-l /etc/hostname").err == "usdt-record: error: '/etc/hostname' is not an ELF file\n");
  require_one_error(run("-l libdoesnotexist"), 1);
  require_one_error(run("-l -p 999999999"), 1);
  CHECK(run("-l -p 999999999").err == "usdt-record: error: no process with PID 999999999\n");
  auto noprobes = run("-l " FIXTURE_NOPROBES);
  CHECK(noprobes.status == 0);
  CHECK(noprobes.out.empty());
  CHECK(noprobes.err == "usdt-record: note: '" FIXTURE_NOPROBES
                        "' and the libraries it needs have no USDT probes\n");
}

TEST_CASE("a bad target does not hide the others", "[list_command]") {
  auto r = run("-l /nonexistent/file " FIXTURE_LIB);
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.out.find(":fixturelib:call\n") != std::string::npos);
}

TEST_CASE("usage errors exit 2", "[list_command]") {
  auto r = run("--bogus");
  CHECK(r.status == 2);
  CHECK(starts_with(r.err, "usdt-record: error: unrecognised option '--bogus'\n"));
  auto bad_pattern = run("-l 'usdt::x:y' " FIXTURE_LIB);
  CHECK(bad_pattern.status == 2);
  CHECK(starts_with(bad_pattern.err, "usdt-record: error: invalid probe 'usdt::x:y'"));
}

TEST_CASE("a pattern without a target: the error and one hint", "[list_command]") {
  auto r = run("-l 'python:*'");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(count_lines(r.err) == 2);
  CHECK(starts_with(r.err, "usdt-record: error: no TARGET to list (patterns given: 1)\n"));
  CHECK(r.err.find("\nhint: name the file or library whose probes to list, e.g. usdt-record -l "
                   "'python:*' /usr/bin/python3.11, or a running process with -p PID\n") !=
        std::string::npos);
}

TEST_CASE("-l -p lists the process's binary and its libraries", "[list_command]") {
  WaitingFixture fixture(FIXTURE_USELIB);
  auto r = run("-l -p " + std::to_string(fixture.pid()));
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(starts_with(r.out, "usdt:" FIXTURE_USELIB ":uselib:after\n"));
  CHECK(r.out.find("usdt:" FIXTURE_LIB ":fixturelib:call\n") != std::string::npos);
  CHECK(r.out.find("usdt:" FIXTURE_LIB ":fixturelib:loaded\n") != std::string::npos);
}

TEST_CASE("help and version", "[list_command]") {
  auto help = run("--help");
  CHECK(help.status == 0);
  CHECK(help.out.find("usage:") != std::string::npos);
  auto version = run("--version");
  CHECK(version.status == 0);
  CHECK(starts_with(version.out, "usdt-record "));
}

TEST_CASE("functions of a file: -l 'uprobe:PATH:PATTERN', -v details", "[list_command]") {
  auto r = run("-l 'uprobe:" FIXTURE_LIB ":fixture_lib_*'");
  CHECK(r.status == 0);
  CHECK(r.out.find("uprobe:" FIXTURE_LIB ":fixture_lib_call\n") != std::string::npos);
  auto v = run("-l -v -e 'uretprobe:" FIXTURE_LIB ":fixture_lib_call'");
  CHECK(v.status == 0);
  CHECK(starts_with(v.out, "uretprobe:" FIXTURE_LIB ":fixture_lib_call\n  address 0x"));
  CHECK(v.out.find(", global (.") != std::string::npos);
  CHECK(v.out.find("call frame") == std::string::npos);  // a uretprobe's hit is in the caller
  auto entry = run("-l -v -e 'uprobe:" FIXTURE_LIB ":fixture_lib_call'");
  CHECK(entry.out.find("\n    call frame: function entry: no frame set up, the caller's return "
                       "address is at 0(%rsp)") != std::string::npos);
  // libc is stripped: its functions come from .dynsym.
  auto libc = run("-l -v 'uprobe:libc.so.6:malloc'");
  CHECK(libc.status == 0);
  CHECK(libc.out.find(":malloc\n  address 0x") != std::string::npos);
  CHECK(libc.out.find("(.dynsym)") != std::string::npos);
  auto none = run("-l 'uprobe:" FIXTURE_LIB ":no_such_*'");
  CHECK(none.status == 0);
  CHECK(none.out.empty());
  CHECK(none.err == "usdt-record: note: no function matches the given patterns\n");
  auto missing = run("-l 'uprobe:/nonexistent/x:f'");
  CHECK(missing.status == 1);
}
