// run_record_command (record_command.h): the recording session
// (record_session.h) from start to end, with the exception boundary of the
// thread that drains: whatever ends the recording, the session's finish()
// runs, so that the trace gets its end, the command does not outlive the
// recording and no tracefs event of ours is left.
#include "record/session/record_command.h"

#include <unistd.h>

#include <exception>
#include <iostream>

#include "record/diagnostics.h"
#include "record/resolve/target_processes.h"
#include "record/session/record_session.h"

namespace usdt::record {
namespace {

Error internal_error(const std::exception* e) {
  return Error(std::string("recording stopped: internal error in the drain loop: ") +
               (e != nullptr ? e->what() : "unknown exception"));
}

}  // namespace

int RecordSession::run() {
  if (Status s = prepare(); !s) {
    print_error(std::cerr, s.error());
    return 1;
  }
  if (Status s = attach(); !s) {
    print_error(std::cerr, s.error());
    // Nothing was recorded: leave no half-made trace behind.
    writer_thread_.reset();
    sink_.reset();
    if (!created_path_.empty()) unlink(created_path_.c_str());
    return 1;
  }
  std::optional<Error> failure;
  try {
    if (Status s = loop(); !s) failure = s.error();
  } catch (const std::exception& e) {
    failure = internal_error(&e);
  } catch (...) {
    failure = internal_error(nullptr);
  }
  return finish(failure);
}

int run_record_command(const RecordOptions& options) {
  // -p ids become processes first: a thread id stands for its process.
  RecordOptions targets = options;
  std::vector<std::string> notes;
  Result<std::vector<pid_t>> pids = resolve_target_pids(options.pids, notes);
  if (!pids) {
    print_error(std::cerr, pids.error());
    return 1;
  }
  targets.pids = std::move(*pids);
  for (const std::string& line : notes) {
    if (!options.quiet) note(std::cerr) << line << '\n';
  }
  RecordSession session(targets);
  return session.run();
}

}  // namespace usdt::record
