// Long recordings stay the same size: a workload that forks thousands of
// short processes, each hitting a probe, under -- and under -a. The
// recorder's tables of threads and processes hold what still runs, not
// what ever ran, and it has as many descriptors open at the end as at the
// start (USDT_RECORD_TEST_TABLES has it print both).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "integration_support.h"

using usdt::format::Event;
using namespace usdt::itest;

namespace {

constexpr int kChildren = 2000;

// "usdt-record: tables at the end: seen_threads 1 named_threads 2 ..." as
// name -> number.
std::map<std::string, uint64_t> tables(const std::string& err, const std::string& when) {
  const std::string head = "usdt-record: tables " + when + ": ";
  size_t at = err.find(head);
  REQUIRE(at != std::string::npos);
  std::istringstream in(err.substr(at + head.size(), err.find('\n', at) - at - head.size()));
  std::map<std::string, uint64_t> out;
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) out[name] = value;
  return out;
}

void check_bounded(const std::string& err, uint64_t most) {
  const std::map<std::string, uint64_t> start = tables(err, "at the start");
  const std::map<std::string, uint64_t> end = tables(err, "at the end");
  // None more (the command's own may have closed meanwhile).
  CHECK(end.at("fds") <= start.at("fds"));
  // Not the thousands that ran: what still runs.
  for (const char* table : {"seen_threads", "named_threads", "traced_processes",
                            "counted_processes", "namespaces_at_fork"}) {
    INFO(table);
    CHECK(end.at(table) <= most);
  }
}

}  // namespace

TEST_CASE("process churn under --: the tables and the descriptors stay as they were",
          "[.root][churn_command]") {
  setenv("USDT_RECORD_TEST_TABLES", "1", 1);
  const std::string out = temp_trace("churn_command");
  RunResult r = run({recorder(), "-e", "churn:*", "-o", out, "--", program("itest_churn"),
                     std::to_string(kChildren)});
  unsetenv("USDT_RECORD_TEST_TABLES");
  INFO(r.err);
  REQUIRE(r.status == 0);
  // The command and its last child are all that may remain.
  check_bounded(r.err, 2);
  // Every child ran in the recorder's PID namespace, whether it was still
  // there to be looked at or not (the kernel said so at its fork).
  CHECK(tables(r.err, "at the end").at("namespace_records") == 0);
  Trace t = read_trace(out);
  CHECK(t.of("churn", "child").size() == kChildren);
  CHECK(t.of("churn", "done").size() == 1);
  CHECK(t.lost_count() == 0);
}

TEST_CASE("process churn under -a: the tables and the descriptors stay as they were",
          "[.root][churn_all]") {
  setenv("USDT_RECORD_TEST_TABLES", "1", 1);
  const std::string out = temp_trace("churn_all");
  // A copy of its own: -a probes a file, and another recording of the same
  // file (this case on the other capture path, run beside it) churns too.
  const std::string churn = temp_trace("churn_all_program");
  std::filesystem::copy_file(program("itest_churn"), churn,
                             std::filesystem::copy_options::overwrite_existing);
  Process rec = Process::start({recorder(), "-a", "-e", "usdt:" + churn + ":churn:*", "-o", out},
                               false, true, true);
  unsetenv("USDT_RECORD_TEST_TABLES");
  REQUIRE(rec.wait_for_stderr("usdt-record: recording "));
  RunResult w = run({churn, std::to_string(kChildren)});
  REQUIRE(w.status == 0);
  REQUIRE(w.out == "churned " + std::to_string(kChildren) + "\n");
  rec.signal(SIGINT);
  std::string err = rec.stderr_seen + rec.read_rest(true);
  INFO(err);
  REQUIRE(rec.wait() == 0);
  // -a sees every process of the machine start and end: what still runs of
  // them (other tests, the shell) may be in the tables, never the thousands
  // forked here.
  check_bounded(err, kChildren / 10);
  Trace t = read_trace(out);
  CHECK(t.of("churn", "child").size() == kChildren);
  CHECK(t.of("churn", "done").size() == 1);
  CHECK(t.lost_count() == 0);
  unlink(churn.c_str());
}
