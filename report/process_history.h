// The process records (comm, exec, fork, exit, mmap) of a whole input, for
// commands cut into segments whose per-event work needs the thread names or
// mappings current at each event (dump, stacks): a segment's reader starts
// from every record before it. They are read by a pass that decodes only the
// chunks holding any (format::ReadFilter::events false), with the filters
// the command's own readers have, so a segment sees what one reader of
// everything would have seen by then.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "formats/trace_types.h"
#include "report/event_filter.h"
#include "report/trace_input.h"

namespace usdt::report {

class ProcessHistory {
 public:
  // nullopt when the input cannot be read again (it was read already) or
  // when most of its records lie in chunks with process records: the pass
  // would then read nearly all of it once more, and the command is better
  // off reading serially.
  static std::optional<ProcessHistory> read(TraceInput& input, const EventFilter& filter);

  // f(file, record) for every record before time (on the timeline), in the
  // order one reader of everything returns them: time order, so the replay
  // stops at the first record at or past time.
  template <typename F>
  void replay_before(uint64_t time, F&& f) const {
    for (const Entry& e : entries_) {
      if (e.time >= time) break;
      f(e.file, e.event);
    }
  }

 private:
  struct Entry {
    uint32_t file;
    uint64_t time;
    format::ProcessEvent event;
  };
  std::vector<Entry> entries_;
};

}  // namespace usdt::report
