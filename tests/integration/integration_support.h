// Helpers for the recording tests: run programs with pipes, run the real
// usdt-record, read a trace back through formats::TraceReader.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::itest {

// A started process with its stdin, stdout and stderr on pipes (each -1
// when not requested; stdin is then /dev/null).
class Process {
 public:
  static Process start(const std::vector<std::string>& argv, bool pipe_stdin, bool pipe_stdout,
                       bool pipe_stderr);
  Process(Process&& other) noexcept;
  Process& operator=(Process&&) = delete;
  ~Process();  // kills and reaps a process still running

  pid_t pid() const { return pid_; }
  void write_line(const std::string& line);
  void close_stdin();
  // Closes the test's end of the stdout (or stderr) pipe: the process's
  // next write there meets a closed pipe.
  void close_output(bool stderr_pipe);
  // Reads one line from stdout (or stderr); empty optional at EOF.
  std::optional<std::string> read_line(bool from_stderr = false);
  // Reads stderr lines until one contains needle; all lines read are kept.
  bool wait_for_stderr(const std::string& needle);
  std::string read_rest(bool from_stderr);
  // Reads stdout and stderr together until both end (neither can block the
  // other when it fills its pipe); each as read_rest gives it.
  void read_both(std::string* out, std::string* err);
  // Waits; returns the exit code or 128 + signal.
  int wait();
  void signal(int sig);
  // Sends SIGSTOP and returns once every thread of the process has stopped
  // (waitpid's WUNTRACED report); false if it exited instead.
  bool stop();

  std::string stderr_seen;

 private:
  Process() = default;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buf_, err_buf_;
  bool reaped_ = false;
};

struct RunResult {
  int status = -1;
  std::string err;  // stderr
  std::string out;  // stdout
};

// Runs a program to its end.
RunResult run(const std::vector<std::string>& argv);

// The capture path the suite runs on (USDT_ITEST_CAPTURE: "bpf" or
// "sample", set per CTest entry; "" for the recorder's default). Every run
// of the recorder through Process::start() and run() is given
// --capture PATH, so that each recording test runs on both paths with the
// same expected values.
std::string capture_path();
bool on_bpf_path();
// argv with "--capture PATH" after the recorder's own path, if a path is set.
std::vector<std::string> with_capture_path(const std::vector<std::string>& argv);

// The path of the usdt-record under test, and of a test program.
std::string recorder();
std::string program(const std::string& name);
// A fresh trace path in the test's temporary directory.
std::string temp_trace(const std::string& name);

struct Trace {
  std::vector<format::ProbeSite> sites;
  std::vector<format::Event> events;
  std::vector<format::ProcessEvent> processes;
  std::vector<format::LostEvent> lost;
  std::optional<format::TraceSummary> summary;
  bool truncated = false;

  // Ids of the sites of provider:name.
  std::vector<uint32_t> site_ids(const std::string& provider, const std::string& name) const;
  // The events of provider:name, in time order.
  std::vector<format::Event> of(const std::string& provider, const std::string& name) const;
  uint64_t lost_count() const;
};

// Reads the whole trace; a trace that cannot be opened fails the test.
Trace read_trace(const std::string& path);

// Splits text into lines.
std::vector<std::string> lines(const std::string& text);

}  // namespace usdt::itest
