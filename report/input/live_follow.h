// The loop of every view of a recording in progress (usdt-report top,
// summary and latency --follow): poll the trace (LiveTrace), hand what came
// to the command's consumer, and redraw once an interval, until the
// recording ends; or one look and one screen (--once).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/result.h"
#include "report/input/live_trace.h"

namespace usdt::report {

struct FollowOptions {
  std::chrono::milliseconds interval{1000};  // between two screens
  bool once = false;                         // one look, one screen
};

// What a screen says besides the consumer's figures.
struct FollowState {
  bool final = false;  // the last screen: the recording ended (or --once)
  bool ended = false;  // the recording's end was read
  // How long nothing has come although the recorder promised progress
  // within progress_every_ns (0 while all is well): it stopped, or was
  // killed before it could write its end.
  uint64_t silent_ns = 0;
};

// What the loop ends with.
enum class FollowEnd {
  ended,          // the recording ended (or --once): the last screen is shown
  sites_changed,  // added probe sites extended the catalog: the caller starts over
  output_failed,  // show() could not write (the reader of the output went away)
};

// Polls live, calls take() after each poll that brought something (the
// consumer reads the records from the pass), show(state) once an interval
// and at the end; show() returns false when it could not write. take() runs with the catalog as of
// the poll: a caller whose consumer cannot follow a catalog that grew gets sites_changed (before
// take()) when restart_on_new_sites is set. Fails when the file can no longer be read.
Result<FollowEnd> follow_trace(LiveTrace& live, const FollowOptions& options,
                               const std::function<void()>& take,
                               const std::function<bool(const FollowState&)>& show,
                               bool restart_on_new_sites);

}  // namespace usdt::report
