// The BPF capture path's own cases (record/kernel/bpf_capture.h): what only
// it has. Every other recording case runs on both paths (CMakeLists.txt).
// These ask for --capture bpf themselves and run in the integration_bpf_
// entries only.
#include <bpf/bpf.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "../skip_case.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

void bpf_path_only() {
  if (capture_path() != "bpf") {
    usdt::test::skip_case("a case of the BPF path (its integration_bpf_ entry runs it)",
                          usdt::test::InCi::skip);
  }
}

// The ids of the BPF programs and maps a process holds, from the fdinfo of
// its descriptors ("prog_id:", "map_id:").
struct BpfIds {
  std::set<uint32_t> programs, maps;
};

BpfIds bpf_ids_of(pid_t pid) {
  BpfIds ids;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return ids;
  while (dirent* e = readdir(d)) {
    std::ifstream info(dir + "/" + e->d_name);
    std::string line;
    while (std::getline(info, line)) {
      if (line.rfind("prog_id:", 0) == 0) ids.programs.insert(std::stoul(line.substr(8)));
      if (line.rfind("map_id:", 0) == 0) ids.maps.insert(std::stoul(line.substr(7)));
    }
  }
  closedir(d);
  return ids;
}

// Whether a BPF program (or map) of that id still exists.
bool program_exists(uint32_t id) {
  int fd = bpf_prog_get_fd_by_id(id);
  if (fd >= 0) close(fd);
  return fd >= 0 || errno != ENOENT;
}
bool map_exists(uint32_t id) {
  int fd = bpf_map_get_fd_by_id(id);
  if (fd >= 0) close(fd);
  return fd >= 0 || errno != ENOENT;
}

// Waits (the kernel frees BPF objects after a grace period) until none of
// ids exists; returns those that still do after a generous timeout.
BpfIds wait_until_freed(const BpfIds& ids) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  BpfIds left = ids;
  while (true) {
    BpfIds still;
    for (uint32_t id : left.programs) {
      if (program_exists(id)) still.programs.insert(id);
    }
    for (uint32_t id : left.maps) {
      if (map_exists(id)) still.maps.insert(id);
    }
    left = still;
    if ((left.programs.empty() && left.maps.empty()) ||
        std::chrono::steady_clock::now() > deadline) {
      return left;
    }
    std::this_thread::yield();
  }
}

}  // namespace

TEST_CASE("bpf: a recorder killed by SIGKILL leaves no BPF program, map or link behind",
          "[.root][capture_sigkill][itest_control]") {
  bpf_path_only();
  Process target = Process::start({program("itest_control")}, true, true, false);
  REQUIRE(target.read_line() == std::optional<std::string>("ready"));
  const std::string out = temp_trace("bpf_sigkill");
  Process rec = Process::start({recorder(), "--capture", "bpf", "-e", "itest:*", "-o", out, "-p",
                                std::to_string(target.pid())},
                               false, false, true);
  REQUIRE(rec.wait_for_stderr("usdt-record: recording "));
  target.write_line("fire 3");
  CHECK(target.read_line() == std::optional<std::string>("fired 3 gated 3"));
  const BpfIds held = bpf_ids_of(rec.pid());
  INFO("the recorder held " << held.programs.size() << " programs and " << held.maps.size()
                            << " maps");
  REQUIRE_FALSE(held.programs.empty());
  REQUIRE_FALSE(held.maps.empty());
  rec.signal(SIGKILL);
  CHECK(rec.wait() == 128 + SIGKILL);
  const BpfIds left = wait_until_freed(held);
  CHECK(left.programs.empty());
  CHECK(left.maps.empty());
  // Nothing pinned under the BPF filesystem by us either.
  CHECK(access("/sys/fs/bpf/usdt_capture", F_OK) != 0);
  target.write_line("exit");
  CHECK(target.wait() == 0);
}

TEST_CASE("bpf: --capture auto says which path it takes", "[.root][capture_auto_line]") {
  bpf_path_only();
  const std::string out = temp_trace("bpf_auto");
  RunResult r = run({recorder(), "--capture", "auto", "-e", "itest:*", "-o", out, "--",
                     program("itest_regs"), "3"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("usdt-record: capturing with BPF: ") != std::string::npos);
  // Call stacks too are captured by the program.
  RunResult stacks = run({recorder(), "--capture", "auto", "-g", "-e", "itest:*", "-o", out, "--",
                          program("itest_regs"), "3"});
  INFO(stacks.err);
  REQUIRE(stacks.status == 0);
  CHECK(stacks.err.find("usdt-record: capturing with BPF: ") != std::string::npos);
  // Tracepoints alone have nothing for it.
  RunResult sampled =
      run({recorder(), "--capture", "auto", "-e", "tracepoint:syscalls:sys_enter_write", "-o", out,
           "--", program("itest_regs"), "3"});
  INFO(sampled.err);
  REQUIRE(sampled.status == 0);
  CHECK(sampled.err.find("usdt-record: capturing with perf samples: tracepoints") !=
        std::string::npos);
}

TEST_CASE("bpf: a full BPF ring is counted per probe as lost, never silent",
          "[.root][capture_ring_full][itest_control]") {
  bpf_path_only();
  Process target = Process::start({program("itest_control")}, true, true, false);
  REQUIRE(target.read_line() == std::optional<std::string>("ready"));
  const std::string out = temp_trace("bpf_ring_full");
  // One page a CPU: a ring of a few KiB, about a hundred records.
  Process rec = Process::start({recorder(), "--capture", "bpf", "--buffer-pages", "1", "-e",
                                "itest:tick", "-o", out, "-p", std::to_string(target.pid())},
                               false, false, true);
  REQUIRE(rec.wait_for_stderr("usdt-record: recording "));
  // The recorder stopped, the ring overflows for certain.
  REQUIRE(rec.stop());
  const long hits = 5000;
  target.write_line("fire " + std::to_string(hits));
  CHECK(target.read_line() == std::optional<std::string>("fired 5000 gated 0"));
  rec.signal(SIGCONT);
  rec.signal(SIGINT);
  const std::string err = rec.stderr_seen + rec.read_rest(true);
  INFO(err);
  REQUIRE(rec.wait() == 0);
  Trace t = read_trace(out);
  REQUIRE(t.summary.has_value());
  const uint64_t lost = t.lost_count();
  CHECK(lost > 0);
  CHECK(t.summary->lost == lost);
  // Every hit is either in the trace or counted lost, of its probe.
  CHECK(t.of("itest", "tick").size() + lost == static_cast<uint64_t>(hits));
  const std::vector<uint32_t> tick = t.site_ids("itest", "tick");
  REQUIRE(tick.size() == 1);
  for (const usdt::format::LostEvent& l : t.lost) CHECK(l.site_id == tick[0]);
  CHECK(err.find("because the BPF ring was full") != std::string::npos);
  target.write_line("exit");
  CHECK(target.wait() == 0);
}
