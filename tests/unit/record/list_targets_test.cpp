// usdt-record -l on programs and library names (record/list_targets.h):
// listing a program finds what a recording of it finds (the probes of the
// libraries it needs), a library name resolves as the loader would, and one
// file is spelt one way everywhere. Runs the built usdt-record; the cases on
// installed interpreters (Ruby, PHP) are [.real] and have CTest entries of
// their own (skipped when the program is missing, failed under CI=true).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "tests/skip_case.h"

namespace {

struct Run {
  int status = -1;
  std::string out, err;
};

Run run(const std::string& args) {
  char err_path[] = "/tmp/usdt_list_targets_err_XXXXXX";
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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The probe lines ("usdt:..."), without the '#' lines.
std::vector<std::string> probes_of(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("usdt:", 0) == 0) out.push_back(line);
  }
  return out;
}

// The files the probe lines name.
std::set<std::string> files_of(const std::string& text) {
  std::set<std::string> files;
  for (const std::string& line : probes_of(text)) {
    // usdt:PATH:PROVIDER:NAME: the path is everything between the prefix and
    // the last two fields.
    std::string rest = line.substr(5);
    rest = rest.substr(0, rest.rfind(':'));
    files.insert(rest.substr(0, rest.rfind(':')));
  }
  return files;
}

void require_program(const std::string& path) {
  if (access(path.c_str(), X_OK) != 0) usdt::test::skip_case(path + " is not installed");
}

}  // namespace

TEST_CASE("a program is listed with the probes of the libraries it needs", "[list_targets]") {
  auto r = run("-l " FIXTURE_USELIB);
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  // Its own probes, then its library's, after a line that says whose.
  CHECK(r.out.rfind("usdt:" FIXTURE_USELIB ":uselib:after\n", 0) == 0);
  CHECK(r.out.find("# " FIXTURE_LIB ": a library of " FIXTURE_USELIB "\n"
                   "usdt:" FIXTURE_LIB ":fixturelib:") != std::string::npos);
  CHECK(files_of(r.out) == std::set<std::string>{FIXTURE_USELIB, FIXTURE_LIB});
}

TEST_CASE("a library is not a program: its own probes only", "[list_targets]") {
  auto r = run("-l " FIXTURE_LIB);
  CHECK(r.status == 0);
  CHECK(files_of(r.out) == std::set<std::string>{FIXTURE_LIB});
  CHECK(r.out.find('#') == std::string::npos);
}

TEST_CASE("each file is listed once, however it is reached", "[list_targets]") {
  auto r = run("-l " FIXTURE_LIB " " FIXTURE_USELIB " " FIXTURE_LIB);
  INFO(r.out);
  CHECK(r.status == 0);
  std::vector<std::string> probes = probes_of(r.out);
  CHECK(std::set<std::string>(probes.begin(), probes.end()).size() == probes.size());
  // The library came first as a target: no "library of" line for it later.
  CHECK(r.out.find("a library of") == std::string::npos);
}

TEST_CASE("a path typed otherwise is shown by its canonical path, the typed one beside it",
          "[list_targets]") {
  const std::filesystem::path lib = FIXTURE_LIB;
  const std::string dir = lib.parent_path().string();
  char link_dir[] = "/tmp/usdt_list_link_XXXXXX";
  REQUIRE(mkdtemp(link_dir) != nullptr);
  const std::string link = std::string(link_dir) + "/linked.so";
  REQUIRE(symlink(FIXTURE_LIB, link.c_str()) == 0);
  auto via_link = run("-l " + link);
  auto relative = run("-l " + dir + "/../" + lib.parent_path().filename().string() + "/" +
                      lib.filename().string());
  unlink(link.c_str());
  rmdir(link_dir);
  INFO(via_link.out);
  CHECK(via_link.status == 0);
  CHECK(via_link.out.rfind("# " + link + ": " FIXTURE_LIB "\n", 0) == 0);
  CHECK(files_of(via_link.out) == std::set<std::string>{FIXTURE_LIB});
  CHECK(files_of(relative.out) == std::set<std::string>{FIXTURE_LIB});
  CHECK(probes_of(via_link.out) == probes_of(run("-l " FIXTURE_LIB).out));
}

TEST_CASE("a name that is neither a file, a library nor a command: one error line",
          "[list_targets]") {
  auto r = run("-l libdoesnotexist_usdt");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "usdt-record: error: 'libdoesnotexist_usdt' is neither a file, nor a library the loader "
        "finds, nor a command in PATH\n");
}

TEST_CASE("listing Ruby's interpreter lists libruby's probes, marked as a library's",
          "[.real][list_ruby]") {
  require_program("/usr/bin/ruby3.1");
  auto r = run("-l /usr/bin/ruby3.1");
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  std::set<std::string> files = files_of(r.out);
  REQUIRE(files.size() == 1);
  const std::string libruby = *files.begin();
  CHECK(libruby.find("/libruby-3.1.so.3.1") != std::string::npos);
  CHECK(libruby == std::filesystem::canonical(libruby).string());
  CHECK(r.out.rfind("# " + libruby + ": a library of /usr/bin/ruby3.1\n", 0) == 0);
  CHECK(r.out.find(":ruby:method__entry\n") != std::string::npos);
  CHECK(probes_of(r.out).size() >= 20);
}

TEST_CASE("a library name resolves as the loader would: ruby, libruby, libruby-3.1.so, ...",
          "[.real][list_ruby_names]") {
  require_program("/usr/bin/ruby3.1");
  const std::vector<std::string> probes = probes_of(run("-l /usr/bin/ruby3.1").out);
  REQUIRE_FALSE(probes.empty());
  const std::string libruby = *files_of(run("-l /usr/bin/ruby3.1").out).begin();
  for (const char* name :
       {"ruby", "libruby", "libruby-3.1.so", "libruby-3.1.so.3.1", "libruby-3.1"}) {
    auto r = run(std::string("-l ") + name);
    INFO(name << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(probes_of(r.out) == probes);
    // The name as typed, beside the canonical path, once.
    CHECK(r.out.rfind(std::string("# ") + name + ": " + libruby + "\n", 0) == 0);
  }
}

TEST_CASE("-l and -l -p spell a library the same way", "[.real][list_ruby_pid]") {
  require_program("/usr/bin/ruby3.1");
  int to_ruby[2], from_ruby[2];
  REQUIRE(pipe(to_ruby) == 0);
  REQUIRE(pipe(from_ruby) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(to_ruby[0], 0);
    dup2(from_ruby[1], 1);
    close(to_ruby[1]);
    close(from_ruby[0]);
    execl("/usr/bin/ruby3.1", "ruby3.1", "-e", "STDOUT.puts 'ready'; STDOUT.flush; STDIN.read",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_ruby[0]);
  close(from_ruby[1]);
  char ready[6] = {};
  REQUIRE(read(from_ruby[0], ready, 6) == 6);  // "ready\n": libruby is mapped
  close(from_ruby[0]);
  auto by_pid = run("-l -p " + std::to_string(pid));
  close(to_ruby[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  auto by_name = run("-l libruby");
  INFO(by_pid.out);
  std::set<std::string> pid_files = files_of(by_pid.out);
  std::set<std::string> name_files = files_of(by_name.out);
  REQUIRE(name_files.size() == 1);
  CHECK(pid_files.count(*name_files.begin()) == 1);
}

TEST_CASE("listing PHP's interpreter lists its own probes and libstdc++'s", "[.real][list_php]") {
  require_program("/usr/bin/php8.2");
  auto r = run("-l /usr/bin/php8.2");
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("usdt:/usr/bin/php8.2:php:function__entry\n") != std::string::npos);
  CHECK(r.out.find(": a library of /usr/bin/php8.2\n") != std::string::npos);
  CHECK(r.out.find(":libstdcxx:throw\n") != std::string::npos);
  // The name of a command in PATH that is no library finds the program.
  auto by_command = run("-l php8.2");
  CHECK(probes_of(by_command.out) == probes_of(r.out));
}
