// What one screen of `usdt-report top` says, as text for 80 columns or as
// one JSON object (a line of JSONL, for scripts): the recording's state,
// the last whole second before the time the file is complete up to, and per
// probe and per start/end pair that second's figures and those since the
// start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/input/live_follow.h"
#include "report/input/live_trace.h"
#include "report/top/top_pass.h"

namespace usdt::report {

struct TopScreenInput {
  const LiveTrace& live;
  const TopPass& pass;
  const FollowState& state;
  std::vector<std::string> pair_names;  // "start -> end", per pair
  std::vector<uint32_t> probes;         // the probes the filter selects
  size_t max_probe_rows = 30;
};

// Where the figures stand: the time up to which every record was read (on
// the timeline), and the last whole second before it (has_second false
// while no second is whole).
struct TopClock {
  uint64_t up_to = 0;
  bool has_second = false;
  uint64_t second = 0;
};
TopClock top_clock(const LiveTrace& live, const TopPass& pass);

std::string top_text(const TopScreenInput& in);
std::string top_json(const TopScreenInput& in);

// "950ns", "12.3us", "4.56ms", "1.20s": at most 7 characters.
std::string short_duration(uint64_t ns);

}  // namespace usdt::report
