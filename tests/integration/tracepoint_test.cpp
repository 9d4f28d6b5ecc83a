// Kernel tracepoints beside user probes (-e tracepoint:SUBSYS:EVENT): exact
// counts and field values for the traced processes only with -- and -p, all
// processes with -a, names and format lines in the probe table, and one
// clear line for each bad spec. The program is itest_writes
// (tests/integration/programs/itest_writes.c): its own writes go to fd 57
// with sizes 1000 + i, which tells them from the writes of its start-up.
// Root only: hidden cases ([.root]) with a CTest entry each.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "formats/trace_reader.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

// One event, copied out of the reader: its fields by name, numbers as
// signed or unsigned decimal as the descriptor says, strings as they are.
struct Hit {
  std::string probe;  // provider:name
  uint32_t pid = 0;
  uint64_t time_ns = 0;
  std::map<std::string, std::string> fields;
  uint64_t number(const std::string& name) const {
    auto it = fields.find(name);
    return it == fields.end() ? ~uint64_t{0} : std::stoull(it->second);
  }
};

struct Recorded {
  std::vector<usdt::format::ProbeSite> sites;
  std::vector<Hit> hits;
  uint64_t lost = 0;
  std::vector<Hit> of(const std::string& probe) const {
    std::vector<Hit> out;
    for (const Hit& h : hits) {
      if (h.probe == probe) out.push_back(h);
    }
    return out;
  }
};

Recorded read_recorded(const std::string& path) {
  auto reader = usdt::format::TraceReader::open(path);
  if (!reader) FAIL("cannot open trace: " << reader.error().message());
  Recorded rec;
  rec.sites = reader->sites();
  while (reader->next()) {
    if (reader->kind() == usdt::format::RecordKind::lost) rec.lost += reader->lost().count;
    if (reader->kind() != usdt::format::RecordKind::event) continue;
    const usdt::format::Event& e = reader->event();
    REQUIRE(e.site_id < rec.sites.size());
    const auto& site = rec.sites[e.site_id];
    Hit hit;
    hit.probe = site.provider + ":" + site.name;
    hit.pid = e.pid;
    hit.time_ns = e.time_ns;
    for (int i = 0; i < e.arg_count && static_cast<size_t>(i) < site.args.size(); ++i) {
      const auto& d = site.args[static_cast<size_t>(i)];
      std::string name = d.name.empty() ? "arg" + std::to_string(i) : d.name;
      if (!e.has_arg(i)) {
        hit.fields[name] = "null";
      } else if (e.is_string(i)) {
        hit.fields[name] = std::string(e.string_arg(i).bytes);
      } else if (d.is_signed) {
        hit.fields[name] = std::to_string(static_cast<int64_t>(e.args[i]));
      } else {
        hit.fields[name] = std::to_string(e.args[i]);
      }
    }
    rec.hits.push_back(std::move(hit));
  }
  return rec;
}

std::string report_path() { return USDT_REPORT_PATH; }

std::vector<std::string> with_output(std::vector<std::string> argv, const std::string& out) {
  argv.insert(argv.begin() + 1, {"-o", out});
  return argv;
}

}  // namespace

TEST_CASE("sys_enter_write with --: exactly the program's writes, none of others",
          "[.root][tracepoint_writes][tracepoints]") {
  // An untraced writer runs all along: none of its writes may be recorded.
  Process other = Process::start({program("itest_writes"), "forever"}, false, false, false);
  const long n = 50;
  std::string out = temp_trace("tp_writes");
  RunResult r = run(with_output({recorder(), "-e", "tracepoint:syscalls:sys_enter_write", "--",
                                 program("itest_writes"), "write", std::to_string(n)},
                                out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("recording 1 tracepoint;") != std::string::npos);
  Recorded rec = read_recorded(out);
  unlink(out.c_str());
  CHECK(rec.lost == 0);

  REQUIRE(rec.sites.size() == 1);
  const auto& site = rec.sites[0];
  CHECK(site.kind == usdt::format::ProbeKind::tracepoint);
  CHECK(site.provider == "syscalls");
  CHECK(site.name == "sys_enter_write");
  REQUIRE(site.args.size() == 4);
  CHECK(site.args[1].name == "fd");
  CHECK(site.args[3].name == "count");
  CHECK(site.args[3].spec.find("field:size_t count; offset:") == 0);

  REQUIRE_FALSE(rec.hits.empty());
  const uint32_t pid = rec.hits.front().pid;
  CHECK(pid != static_cast<uint32_t>(other.pid()));
  std::vector<uint64_t> counts;
  for (const Hit& h : rec.hits) {
    CHECK(h.pid == pid);  // the command only: not the other writer, not the recorder
    if (h.number("fd") == 57) counts.push_back(h.number("count"));
  }
  std::vector<uint64_t> expected;
  for (long i = 0; i < n; ++i) expected.push_back(1000 + static_cast<uint64_t>(i));
  CHECK(counts == expected);

  // Reports know the fields by name: the text dump prints them, --arg takes one.
  std::string again = temp_trace("tp_writes_report");
  RunResult r2 = run(with_output({recorder(), "-q", "-e", "tracepoint:syscalls:sys_enter_write",
                                  "--", program("itest_writes"), "write", "3"},
                                 again));
  REQUIRE(r2.status == 0);
  RunResult dump = run({report_path(), "dump", again});
  CHECK(dump.status == 0);
  size_t named = 0;
  for (const std::string& line : lines(dump.out)) {
    if (line.find("syscalls:sys_enter_write __syscall_nr=1 fd=57 buf=") != std::string::npos &&
        line.find(" count=100") != std::string::npos) {
      ++named;
    }
  }
  CHECK(named == 3);
  RunResult hist = run({report_path(), "hist", "--probe", "syscalls:sys_enter_write", "--arg", "fd",
                        "--format", "json", again});
  CHECK(hist.status == 0);
  CHECK(hist.out.find("\"max\":57") != std::string::npos);
  unlink(again.c_str());
}

TEST_CASE("sys_enter_write with --: children of the command are followed",
          "[.root][tracepoint_children][tracepoints]") {
  std::string out = temp_trace("tp_children");
  const std::string prog = program("itest_writes");
  RunResult r = run(with_output({recorder(), "-e", "tracepoint:syscalls:sys_enter_write", "--",
                                 "/bin/sh", "-c", prog + " write 3; " + prog + " write 4"},
                                out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  Recorded rec = read_recorded(out);
  unlink(out.c_str());
  std::map<uint32_t, std::vector<uint64_t>> by_pid;
  for (const Hit& h : rec.hits) {
    if (h.number("fd") == 57) by_pid[h.pid].push_back(h.number("count"));
  }
  REQUIRE(by_pid.size() == 2);
  std::vector<std::vector<uint64_t>> counts;
  for (const auto& [pid, c] : by_pid) counts.push_back(c);
  std::sort(counts.begin(), counts.end(),
            [](const auto& a, const auto& b) { return a.size() < b.size(); });
  CHECK(counts[0] == std::vector<uint64_t>{1000, 1001, 1002});
  CHECK(counts[1] == std::vector<uint64_t>{1000, 1001, 1002, 1003});
}

TEST_CASE("sched_switch with -p: only that process, prev_comm decoded",
          "[.root][tracepoint_switch][tracepoints]") {
  const long sleeps = 20;
  Process prog =
      Process::start({program("itest_writes"), "sleep", std::to_string(sleeps)}, true, true, false);
  std::optional<std::string> pid_line = prog.read_line();
  REQUIRE(pid_line);
  const std::string pid = *pid_line;
  // A busy neighbour, switched out often, that is not traced.
  Process other = Process::start({program("itest_writes"), "forever"}, false, false, false);
  std::string out = temp_trace("tp_switch");
  Process rec_process =
      Process::start({recorder(), "-o", out, "-e", "tracepoint:sched:sched_switch", "-e",
                      "tracepoint:sched:sched_stat_runtime", "-p", pid},
                     false, false, true);
  const bool recording = rec_process.wait_for_stderr("usdt-record: recording 2 tracepoints");
  INFO(rec_process.stderr_seen);
  REQUIRE(recording);
  prog.write_line("go");
  CHECK(prog.wait() == 0);
  INFO(rec_process.read_rest(true));
  REQUIRE(rec_process.wait() == 0);
  Recorded rec = read_recorded(out);
  unlink(out.c_str());

  std::vector<Hit> switches = rec.of("sched:sched_switch");
  // Each sleep switches the program off the CPU at least once.
  CHECK(switches.size() >= static_cast<size_t>(sleeps));
  for (const Hit& h : switches) {
    CHECK(std::to_string(h.pid) == pid);
    CHECK(h.fields.at("prev_comm") == "itest_writes");
    CHECK(std::to_string(h.number("prev_pid")) == pid);
    CHECK(h.fields.at("next_pid") != "null");
  }
  // sched_stat_runtime counts a hit as its runtime in ns (__perf_count):
  // still one sample per hit, never one per nanosecond.
  std::vector<Hit> runtimes = rec.of("sched:sched_stat_runtime");
  CHECK_FALSE(runtimes.empty());
  CHECK(runtimes.size() <= 2 * switches.size() + 10);
  for (size_t i = 1; i < runtimes.size(); ++i)
    CHECK(runtimes[i].time_ns != runtimes[i - 1].time_ns);
  // A task sleeping in nanosleep leaves the CPU in state S (1).
  size_t sleeping =
      static_cast<size_t>(std::count_if(switches.begin(), switches.end(), [](const Hit& h) {
        return h.fields.at("prev_state") == "1";
      }));
  CHECK(sleeping >= static_cast<size_t>(sleeps));
}

TEST_CASE("USDT probes and tracepoints in one recording",
          "[.root][tracepoint_mixed][tracepoints]") {
  const long n = 20;
  std::string out = temp_trace("tp_mixed");
  RunResult r =
      run(with_output({recorder(), "-e", "itest:write", "-e", "tracepoint:syscalls:sys_enter_write",
                       "--", program("itest_writes"), "write", std::to_string(n)},
                      out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("recording 1 probe site in 1 file and 1 tracepoint;") != std::string::npos);
  Recorded rec = read_recorded(out);
  unlink(out.c_str());
  // In time order: each itest:write(i, size) is followed by its write() of size bytes.
  std::vector<std::string> sequence, expected;
  for (const Hit& h : rec.hits) {
    if (h.probe == "itest:write") {
      sequence.push_back("usdt " + h.fields.at("arg0") + " " + h.fields.at("arg1"));
    } else if (h.number("fd") == 57) {
      sequence.push_back("write " + h.fields.at("count"));
    }
  }
  for (long i = 0; i < n; ++i) {
    expected.push_back("usdt " + std::to_string(i) + " " + std::to_string(1000 + i));
    expected.push_back("write " + std::to_string(1000 + i));
  }
  CHECK(sequence == expected);
}

TEST_CASE("tracepoints with -a: every process", "[.root][tracepoint_all][tracepoints]") {
  // A process that ran before the recording, and is no child of it, writes
  // kWrites records to its fd 57 once the recording runs, then exits.
  const long kWrites = 200;
  Process other = Process::start({program("itest_writes"), "count", std::to_string(kWrites)}, true,
                                 true, false);
  REQUIRE(other.read_line() == std::optional<std::string>(std::to_string(other.pid())));
  std::string out = temp_trace("tp_all");
  Process rec_process =
      Process::start({recorder(), "-o", out, "-a", "-e", "tracepoint:syscalls:sys_enter_write"},
                     false, false, true);
  const bool recording = rec_process.wait_for_stderr("usdt-record: recording 1 tracepoint");
  INFO(rec_process.stderr_seen);
  REQUIRE(recording);
  other.write_line("go");
  CHECK(other.wait() == 0);
  rec_process.signal(SIGINT);
  INFO(rec_process.read_rest(true));
  REQUIRE(rec_process.wait() == 0);
  Recorded rec = read_recorded(out);
  unlink(out.c_str());
  size_t to_sink = 0;
  for (const Hit& h : rec.hits) {
    if (h.pid != static_cast<uint32_t>(other.pid()) || h.number("fd") != 57) continue;
    ++to_sink;
    CHECK(h.number("count") == 1);
  }
  // Every one of its writes to fd 57, each once; with every other process's
  // writes recorded too, a loaded machine may overflow a ring: then the
  // writes missing are among the events counted lost.
  INFO(to_sink << " writes to fd 57 recorded, " << rec.lost << " events lost");
  CHECK(to_sink <= static_cast<size_t>(kWrites));
  CHECK(to_sink + rec.lost >= static_cast<uint64_t>(kWrites));
}

TEST_CASE("bad tracepoint specs: one clear line each", "[.root][tracepoint_errors][tracepoints]") {
  std::string out = temp_trace("tp_bad");
  RunResult missing =
      run({recorder(), "-o", out, "-e", "tracepoint:sched:no_such_event", "--", "true"});
  CHECK(missing.status == 1);
  CHECK(missing.err ==
        "usdt-record: error: tracepoint sched:no_such_event does not exist\n"
        "hint: ls /sys/kernel/tracing/events/sched\n");
  RunResult nothing = run({recorder(), "-o", out, "-e", "tracepoint:sched:zz*", "--", "true"});
  CHECK(nothing.status == 1);
  CHECK(nothing.err.find("usdt-record: error: tracepoint:sched:zz* matches no tracepoint\n") == 0);
  RunResult subsystem = run({recorder(), "-o", out, "-e", "tracepoint:no_subsys:x", "--", "true"});
  CHECK(subsystem.status == 1);
  CHECK(subsystem.err.find("tracepoint subsystem 'no_subsys'") != std::string::npos);
  RunResult shape = run({recorder(), "-o", out, "-e", "tracepoint:sched", "--", "true"});
  CHECK(shape.status != 0);
  CHECK(shape.err.find("expected tracepoint:SUBSYS:EVENT") != std::string::npos);
  RunResult strings = run({recorder(), "-o", out, "-e", "tracepoint:sched:sched_switch", "--string",
                           "sched:*=arg0", "--", "true"});
  CHECK(strings.status == 1);
  CHECK(strings.err ==
        "usdt-record: error: --string sched:* matches only tracepoints, whose string "
        "fields are recorded as strings already\n");
  CHECK(access(out.c_str(), F_OK) != 0);  // no half-made trace
}

TEST_CASE("tracepoints without the right to tracefs: one line and a hint",
          "[.root][tracepoint_permission][tracepoints]") {
  if (access("/usr/bin/setpriv", X_OK) != 0) FAIL("setpriv (util-linux) is needed");
  // As nobody: tracefs is root's (mode 0700), or, when it is not mounted,
  // mounting it needs CAP_SYS_ADMIN.
  const std::vector<std::string> nobody = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                           "--clear-groups"};
  std::vector<std::string> argv = nobody;
  for (const char* a :
       {"-o", "/tmp/usdt_tp_nobody.trace", "-e", "tracepoint:sched:sched_switch", "--", "true"}) {
    if (argv.size() == nobody.size()) argv.push_back(recorder());
    argv.push_back(a);
  }
  RunResult r = run(argv);
  CHECK(r.status == 1);
  INFO(r.err);
  std::vector<std::string> said = lines(r.err);
  REQUIRE(said.size() == 2);
  CHECK(said[0].find("usdt-record: error: tracepoints need tracefs: ") == 0);
  CHECK(said[1] == "hint: run as root (tracefs belongs to root)");
  argv = nobody;
  argv.push_back(recorder());
  argv.push_back("-l");
  argv.push_back("tracepoint:sched:*");
  RunResult list = run(argv);
  CHECK(list.status == 1);
  CHECK(lines(list.err).size() == 2);
}

TEST_CASE("-l lists tracepoints, -v their fields", "[.root][tracepoint_list][tracepoints]") {
  RunResult list = run({recorder(), "-l", "tracepoint:sched:sched_switch"});
  CHECK(list.status == 0);
  CHECK(list.out == "tracepoint:sched:sched_switch\n");
  RunResult verbose = run({recorder(), "-l", "-v", "tracepoint:sched:sched_sw*"});
  CHECK(verbose.status == 0);
  CHECK(verbose.out.find("tracepoint:sched:sched_switch\n"
                         "    arg0: prev_comm  field:char prev_comm[16]; offset:8; size:16; "
                         "signed:0;  [string]\n"
                         "    arg1: prev_pid  field:pid_t prev_pid; offset:24; size:4; signed:1;  "
                         "[signed 4-byte integer]\n") != std::string::npos);
  RunResult none = run({recorder(), "-l", "tracepoint:sched:zz*"});
  CHECK(none.status == 1);
}
