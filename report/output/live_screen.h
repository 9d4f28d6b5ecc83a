// Where a view of a recording in progress draws (usdt-report top, summary
// and latency --follow). On a terminal each screen replaces the last (plain
// ANSI: cursor home, clear to the end; nothing to restore when the program
// is stopped); elsewhere (a pipe, a file) screens are written one after
// another, separated by a blank line, or only the last one, as the command
// chooses.
#pragma once

#include <cstdio>
#include <string>

#include "report/input/live_follow.h"
#include "report/input/live_trace.h"

namespace usdt::report {

class LiveScreen {
 public:
  // every_screen: off a terminal, write every screen (top), or only the
  // last (summary and latency --follow, whose last screen is the report).
  LiveScreen(std::FILE* out, bool every_screen);

  bool terminal() const { return terminal_; }
  // Draws text as the current screen; final: the last one. Returns false
  // when writing failed (the reader went away).
  bool draw(const std::string& text, bool final);

 private:
  std::FILE* out_;
  bool terminal_;
  bool every_screen_;
  bool drawn_ = false;
};

// The line above a --follow screen: the recording is in progress, and up to
// which time (after its start) the report counts; or that the recorder has
// gone quiet for longer than it promised.
std::string live_status_line(const LiveTrace& live, const FollowState& state);

}  // namespace usdt::report
