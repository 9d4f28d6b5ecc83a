// Fleets and containers: the host label (--hostname, USDT_HOSTNAME), a
// process in a PID namespace of its own shown with its pid there beside
// the host's, and -a on a path as a container's mount namespace has it
// (--mount-ns-of). The namespaces are made with util-linux's unshare.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>

#include "formats/trace_reader.h"
#include "integration_support.h"
#include "tests/skip_case.h"

using usdt::format::Event;
using usdt::format::ProcessEvent;
using usdt::format::ProcessEventKind;
using namespace usdt::itest;

namespace {

std::string reporter() { return USDT_REPORT_PATH; }

std::string unshare_path() {
  for (const char* p : {"/usr/bin/unshare", "/bin/unshare"}) {
    if (access(p, X_OK) == 0) return p;
  }
  usdt::test::skip_case("unshare (util-linux) is not installed");
  return "";
}

// "pid P host H" of itest_nspid: P as the process sees itself, H as the host does.
std::pair<uint32_t, uint32_t> read_pids(Process& p) {
  std::optional<std::string> line = p.read_line();
  REQUIRE(line);
  unsigned ns = 0, host = 0;
  REQUIRE(std::sscanf(line->c_str(), "pid %u host %u", &ns, &host) == 2);
  return {ns, host};
}

// Has itest_nspid, recorded by rec into out, fire nspid:tick 10 times and
// exit; the trace, once the recording ended cleanly.
Trace fire_ten_and_end(Process& rec, const std::string& out) {
  rec.write_line("fire 10");
  REQUIRE(rec.read_line() == std::optional<std::string>("fired 10"));
  rec.write_line("exit");
  std::string err = rec.read_rest(true);
  INFO(err);
  REQUIRE(rec.wait() == 0);
  return read_trace(out);
}

}  // namespace

TEST_CASE("a process in a PID namespace of its own: both pids stored and shown, exactly",
          "[.root][pid_namespace]") {
  const std::string unshare = unshare_path();
  const std::string nspid = program("itest_nspid");
  const std::string out = temp_trace("pid_namespace");
  Process rec =
      Process::start({recorder(), "--hostname", "fleet-7", "-e", "usdt:" + nspid + ":nspid:tick",
                      "-o", out, "--", unshare, "--pid", "--fork", nspid},
                     true, true, true);
  const auto [ns_pid, host_pid] = read_pids(rec);
  INFO("pid " << ns_pid << " in its namespace, " << host_pid << " on the host");
  CHECK(ns_pid == 1);  // the first process of a new namespace
  REQUIRE(host_pid != ns_pid);
  Trace t = fire_ten_and_end(rec, out);
  std::vector<Event> ticks = t.of("nspid", "tick");
  REQUIRE(ticks.size() == 10);
  for (const Event& e : ticks) CHECK(e.pid == host_pid);
  std::vector<ProcessEvent> ns;
  for (const ProcessEvent& p : t.processes) {
    if (p.kind == ProcessEventKind::pid_namespace) ns.push_back(p);
  }
  REQUIRE(ns.size() == 1);  // one thread had events
  CHECK(ns[0].pid == host_pid);
  CHECK(ns[0].tid == host_pid);
  CHECK(ns[0].ns_pid == ns_pid);
  CHECK(ns[0].ns_tid == ns_pid);
  struct stat own {};
  REQUIRE(stat("/proc/self/ns/pid", &own) == 0);
  CHECK(ns[0].pid_namespace != 0);
  CHECK(ns[0].pid_namespace != static_cast<uint64_t>(own.st_ino));
  CHECK(ns[0].time_ns <= ticks.front().time_ns);  // before the thread's first event

  // The reports show both.
  RunResult summary = run({reporter(), "summary", out});
  REQUIRE(summary.status == 0);
  INFO(summary.out);
  CHECK(summary.out.find("(host fleet-7,") != std::string::npos);
  CHECK(summary.out.find("ns pid") != std::string::npos);
  CHECK(summary.out.find(std::to_string(host_pid) + "         " + std::to_string(ns_pid) + "  ") !=
        std::string::npos);
  RunResult dump = run({reporter(), "dump", out});
  REQUIRE(dump.status == 0);
  const std::string both = std::to_string(host_pid) + "/" + std::to_string(host_pid) + " (ns " +
                           std::to_string(ns_pid) + "/" + std::to_string(ns_pid) + ")";
  CHECK(lines(dump.out).size() == 10);
  for (const std::string& line : lines(dump.out)) CHECK(line.find(both) != std::string::npos);
  RunResult jsonl = run({reporter(), "dump", "--format", "jsonl", out});
  REQUIRE(jsonl.status == 0);
  const std::string ids =
      "\"pid\":" + std::to_string(host_pid) + ",\"tid\":" + std::to_string(host_pid) +
      ",\"ns_pid\":" + std::to_string(ns_pid) + ",\"ns_tid\":" + std::to_string(ns_pid) + ",";
  CHECK(lines(jsonl.out).size() == 10);
  for (const std::string& line : lines(jsonl.out)) CHECK(line.find(ids) != std::string::npos);
}

TEST_CASE("a recorder in a PID namespace of its own names processes by that namespace's pids",
          "[.root][recorder_pid_namespace]") {
  const std::string unshare = unshare_path();
  const std::string nspid = program("itest_nspid");
  const std::string out = temp_trace("recorder_pid_namespace");
  // The recorder is the namespace's first process, its command the second;
  // with the namespace's own /proc both numbers itest_nspid prints are the
  // namespace's. The host's numbers of these processes are others.
  Process rec = Process::start({unshare, "--pid", "--fork", "--mount-proc", recorder(), "-e",
                                "usdt:" + nspid + ":nspid:tick", "-o", out, "--", nspid},
                               true, true, true);
  const auto [ns_pid, proc_pid] = read_pids(rec);
  CHECK(ns_pid == 2);
  CHECK(proc_pid == ns_pid);
  Trace t = fire_ten_and_end(rec, out);
  std::vector<Event> ticks = t.of("nspid", "tick");
  REQUIRE(ticks.size() == 10);
  for (const Event& e : ticks) {
    CHECK(e.pid == ns_pid);
    CHECK(e.tid == ns_pid);
  }
}

TEST_CASE("the host label: --hostname, else USDT_HOSTNAME, else uname -n", "[.root][hostname]") {
  const std::string nspid = program("itest_nspid");
  auto label_of = [&](const std::vector<std::string>& options) {
    const std::string out = temp_trace("hostname");
    std::vector<std::string> argv{recorder()};
    argv.insert(argv.end(), options.begin(), options.end());
    for (const std::string& a : {std::string("-e"), "usdt:" + nspid + ":nspid:tick",
                                 std::string("-o"), out, std::string("--"), nspid}) {
      argv.push_back(a);
    }
    Process rec = Process::start(argv, true, true, true);
    rec.close_stdin();  // itest_nspid ends at EOF
    std::string out_text, err;
    rec.read_both(&out_text, &err);
    INFO(err);
    REQUIRE(rec.wait() == 0);
    auto reader = usdt::format::TraceReader::open(out);
    REQUIRE(reader.ok());
    return reader->metadata().hostname;
  };
  setenv("USDT_HOSTNAME", "pod-3", 1);
  CHECK(label_of({}) == "pod-3");
  CHECK(label_of({"--hostname", "fleet-7"}) == "fleet-7");  // the option wins
  unsetenv("USDT_HOSTNAME");
  char host[256] = {};
  REQUIRE(gethostname(host, sizeof host - 1) == 0);
  CHECK(label_of({}) == host);
  RunResult bad = run({recorder(), "--hostname", "two words", "-e", "x:y", "-a"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("usdt-record: error: --hostname must be") == 0);
}

TEST_CASE("-a with a path as a container's mount namespace has it (--mount-ns-of)",
          "[.root][mount_namespace]") {
  const std::string unshare = unshare_path();
  // A directory that is empty on the host; inside the namespace a tmpfs on
  // it holds the program, at a path the host does not have.
  const std::string dir = temp_trace("mount_ns_dir");
  REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  const std::string inner = dir + "/inner_nspid";
  const std::string script = "mount -t tmpfs none '" + dir + "' && cp '" + program("itest_nspid") +
                             "' '" + inner + "' && exec '" + inner + "'";
  Process container = Process::start(
      {unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script}, true, true, true);
  const auto [ns_pid, host_pid] = read_pids(container);
  REQUIRE(ns_pid == static_cast<uint32_t>(container.pid()));  // no PID namespace here
  struct stat st {};
  REQUIRE(stat(inner.c_str(), &st) != 0);  // not on the host

  // Without --mount-ns-of the host has no such file.
  const std::string out = temp_trace("mount_namespace");
  RunResult missing = run({recorder(), "-a", "-e", "usdt:" + inner + ":nspid:tick", "-o", out});
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no file '" + inner + "'") != std::string::npos);

  Process rec = Process::start({recorder(), "-a", "--mount-ns-of", std::to_string(container.pid()),
                                "-e", "usdt:" + inner + ":nspid:tick", "-o", out},
                               false, true, true);
  REQUIRE(rec.wait_for_stderr("usdt-record: recording "));
  container.write_line("fire 5");
  REQUIRE(container.read_line() == std::optional<std::string>("fired 5"));
  rec.signal(SIGINT);
  std::string err = rec.stderr_seen + rec.read_rest(true);
  INFO(err);
  REQUIRE(rec.wait() == 0);
  container.write_line("exit");
  CHECK(container.wait() == 0);
  rmdir(dir.c_str());

  Trace t = read_trace(out);
  REQUIRE(t.sites.size() == 1);
  CHECK(t.sites[0].path == inner);  // as the container names it
  std::vector<Event> ticks = t.of("nspid", "tick");
  REQUIRE(ticks.size() == 5);
  for (uint64_t k = 0; k < 5; ++k) {
    CHECK(ticks[k].pid == host_pid);
    CHECK(ticks[k].args[0] == k);
  }
}
