#include "leftovers.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

namespace usdt::itest {
namespace {

const std::string kTracefs = "/sys/kernel/tracing";
const std::string kUprobeEvents = kTracefs + "/uprobe_events";

}  // namespace

void ensure_tracefs() {
  if (access(kUprobeEvents.c_str(), R_OK) == 0) return;
  RunResult m = run({"/bin/mount", "-t", "tracefs", "nodev", kTracefs});
  INFO(m.err);
  REQUIRE(access(kUprobeEvents.c_str(), R_OK) == 0);
}

// Through write(2): an ofstream in append mode seeks, which tracefs refuses.
bool write_uprobe_events(const std::string& command) {
  int fd = open(kUprobeEvents.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return false;
  std::string line = command + "\n";
  bool ok = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  return ok;
}

std::vector<std::string> uprobe_events() {
  std::ifstream in(kUprobeEvents);
  std::vector<std::string> defined;
  for (std::string line; std::getline(in, line);) defined.push_back(line);
  return defined;
}

std::vector<std::string> events_of(pid_t recorder_pid) {
  const std::string prefix = ":usdtrec_" + std::to_string(recorder_pid) + "_";
  std::vector<std::string> ours;
  for (const std::string& line : uprobe_events()) {
    size_t colon = line.find(':');
    if (colon != std::string::npos && line.compare(colon, prefix.size(), prefix) == 0) {
      ours.push_back(line);
    }
  }
  return ours;
}

std::string text(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

std::vector<std::string> wait_until_gone(pid_t recorder_pid) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  for (;;) {
    std::vector<std::string> left = events_of(recorder_pid);
    if (left.empty() || std::chrono::steady_clock::now() > deadline) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

ForeignEvent::ForeignEvent() {
  ensure_tracefs();
  name_ = "itest_foreign/x" + std::to_string(getpid());
  REQUIRE(write_uprobe_events("p:" + name_ + " " + program("itest_control") + ":0x1000"));
  REQUIRE(defined());
}

ForeignEvent::~ForeignEvent() {
  if (!removed_) write_uprobe_events("-:" + name_);
}

bool ForeignEvent::defined() const {
  for (const std::string& line : uprobe_events()) {
    if (line.rfind("p:" + name_ + " ", 0) == 0) return true;
  }
  return false;
}

void ForeignEvent::remove_and_check() {
  CHECK(write_uprobe_events("-:" + name_));
  removed_ = true;
  CHECK_FALSE(defined());
}

void check_cleaned_up(pid_t recorder_pid, ForeignEvent& foreign) {
  std::vector<std::string> left = wait_until_gone(recorder_pid);
  INFO("left in uprobe_events 15 s after usdt-record ended:\n" << text(left));
  CHECK(left.empty());
  CHECK(foreign.defined());
  foreign.remove_and_check();
}

Process start_recording(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {recorder()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process rec = Process::start(argv, true, true, true);
  bool recording = rec.wait_for_stderr("usdt-record: recording ");
  INFO(rec.stderr_seen);
  REQUIRE(recording);
  INFO("uprobe_events:\n" << text(uprobe_events()));
  CHECK_FALSE(events_of(rec.pid()).empty());
  return rec;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> children;
  for (pid_t child; in >> child;) children.push_back(child);
  return children;
}

bool wait_for_exit(pid_t pid, std::chrono::seconds limit) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};
  int ready;
  do {
    ready = poll(&p, 1, static_cast<int>(limit.count() * 1000));
  } while (ready < 0 && errno == EINTR);
  close(fd);
  return ready == 1;
}

bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' &&
         stat[close + 2] != 'X';
}

}  // namespace usdt::itest
