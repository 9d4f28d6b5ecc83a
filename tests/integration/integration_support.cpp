#include "integration_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <utility>

#include "formats/trace_reader.h"

namespace usdt::itest {

std::string capture_path() {
  const char* path = std::getenv("USDT_ITEST_CAPTURE");
  return path != nullptr ? path : "";
}

bool on_bpf_path() { return capture_path() == "bpf"; }

std::vector<std::string> with_capture_path(const std::vector<std::string>& argv) {
  const std::string path = capture_path();
  if (path.empty()) return argv;
  for (const std::string& a : argv) {
    if (a == "--capture" || a.rfind("--capture=", 0) == 0) return argv;  // the case chose
  }
  std::vector<std::string> out;
  for (const std::string& a : argv) {
    out.push_back(a);
    if (a == recorder()) {
      out.push_back("--capture");
      out.push_back(path);
    }
  }
  return out;
}

Process Process::start(const std::vector<std::string>& argv, bool pipe_stdin, bool pipe_stdout,
                       bool pipe_stderr) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe_stdin) REQUIRE(pipe2(in, O_CLOEXEC) == 0);
  if (pipe_stdout) REQUIRE(pipe2(out, O_CLOEXEC) == 0);
  if (pipe_stderr) REQUIRE(pipe2(err, O_CLOEXEC) == 0);
  const std::vector<std::string> with_capture = with_capture_path(argv);
  std::vector<char*> args;
  for (const std::string& a : with_capture) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (pipe_stdin) {
      dup2(in[0], 0);
    } else {
      // Never the test's own stdin (a terminal would block the programs).
      int null_fd = open("/dev/null", O_RDONLY);
      if (null_fd >= 0) dup2(null_fd, 0);
    }
    if (pipe_stdout) dup2(out[1], 1);
    if (pipe_stderr) dup2(err[1], 2);
    execv(args[0], args.data());
    _exit(127);
  }
  Process p;
  p.pid_ = pid;
  if (pipe_stdin) {
    close(in[0]);
    p.in_ = in[1];
  }
  if (pipe_stdout) {
    close(out[1]);
    p.out_ = out[0];
  }
  if (pipe_stderr) {
    close(err[1]);
    p.err_ = err[0];
  }
  return p;
}

Process::Process(Process&& o) noexcept
    : stderr_seen(std::move(o.stderr_seen)),
      pid_(std::exchange(o.pid_, -1)),
      in_(std::exchange(o.in_, -1)),
      out_(std::exchange(o.out_, -1)),
      err_(std::exchange(o.err_, -1)),
      out_buf_(std::move(o.out_buf_)),
      err_buf_(std::move(o.err_buf_)),
      reaped_(o.reaped_) {}

Process::~Process() {
  for (int fd : {in_, out_, err_}) {
    if (fd >= 0) close(fd);
  }
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Process::write_line(const std::string& line) {
  std::string s = line + "\n";
  REQUIRE(write(in_, s.data(), s.size()) == static_cast<ssize_t>(s.size()));
}

void Process::close_stdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

void Process::close_output(bool stderr_pipe) {
  int& fd = stderr_pipe ? err_ : out_;
  if (fd >= 0) close(fd);
  fd = -1;
}

std::optional<std::string> Process::read_line(bool from_stderr) {
  int fd = from_stderr ? err_ : out_;
  std::string& buf = from_stderr ? err_buf_ : out_buf_;
  for (;;) {
    size_t nl = buf.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (from_stderr) stderr_seen += line + "\n";
      return line;
    }
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (buf.empty()) return std::nullopt;
      std::string line = std::move(buf);
      buf.clear();
      if (from_stderr) stderr_seen += line + "\n";
      return line;
    }
    buf.append(chunk, static_cast<size_t>(n));
  }
}

bool Process::wait_for_stderr(const std::string& needle) {
  while (std::optional<std::string> line = read_line(true)) {
    if (line->find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string Process::read_rest(bool from_stderr) {
  std::string all;
  while (std::optional<std::string> line = read_line(from_stderr)) all += *line + "\n";
  return all;
}

int Process::wait() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void Process::signal(int sig) { kill(pid_, sig); }

bool Process::stop() {
  kill(pid_, SIGSTOP);
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid_, &status, WUNTRACED)) < 0 && errno == EINTR) {
  }
  if (got == pid_ && WIFSTOPPED(status)) return true;
  reaped_ = got == pid_;
  return false;
}

void Process::read_both(std::string* out, std::string* err) {
  *out = std::exchange(out_buf_, {});
  *err = std::exchange(err_buf_, {});
  pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
  std::string* into[2] = {out, err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char chunk[65536];
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;  // ended (poll ignores negative fds)
        continue;
      }
      into[i]->append(chunk, static_cast<size_t>(n));
    }
  }
  // As read_rest: every line, the last one too, ends with a newline.
  for (std::string* s : into) {
    if (!s->empty() && s->back() != '\n') *s += '\n';
  }
  stderr_seen += *err;
}

RunResult run(const std::vector<std::string>& argv) {
  Process p = Process::start(argv, false, true, true);
  RunResult r;
  p.read_both(&r.out, &r.err);
  r.status = p.wait();
  return r;
}

std::string recorder() { return USDT_RECORD_PATH; }

std::string program(const std::string& name) { return std::string(ITEST_PROGRAM_DIR) + "/" + name; }

std::string temp_trace(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  std::string base = dir != nullptr ? dir : "/tmp";
  std::string path = base + "/usdt_itest_" + std::to_string(getpid()) + "_" + name + ".trace";
  unlink(path.c_str());
  return path;
}

std::vector<uint32_t> Trace::site_ids(const std::string& provider, const std::string& name) const {
  std::vector<uint32_t> ids;
  for (const format::ProbeSite& s : sites) {
    if (s.provider == provider && s.name == name) ids.push_back(s.id);
  }
  return ids;
}

std::vector<format::Event> Trace::of(const std::string& provider, const std::string& name) const {
  std::vector<uint32_t> ids = site_ids(provider, name);
  std::vector<format::Event> out;
  for (const format::Event& e : events) {
    for (uint32_t id : ids) {
      if (e.site_id == id) out.push_back(e);
    }
  }
  return out;
}

uint64_t Trace::lost_count() const {
  uint64_t n = 0;
  for (const format::LostEvent& l : lost) n += l.count;
  return n;
}

Trace read_trace(const std::string& path) {
  Result<format::TraceReader> reader = format::TraceReader::open(path);
  if (!reader) FAIL("cannot open trace: " << reader.error().message());
  Trace t;
  t.sites = reader->sites();
  while (reader->next()) {
    switch (reader->kind()) {
      case format::RecordKind::event:
        t.events.push_back(reader->event());
        break;
      case format::RecordKind::process:
        t.processes.push_back(reader->process());
        break;
      case format::RecordKind::lost:
        t.lost.push_back(reader->lost());
        break;
    }
  }
  t.summary = reader->summary();
  t.truncated = reader->diagnostics().truncated;
  return t;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

}  // namespace usdt::itest
