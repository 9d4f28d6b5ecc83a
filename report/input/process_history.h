// The process records (comm, exec, fork, exit, mmap) of a whole input, for
// commands cut into segments whose per-event work needs the thread names or
// mappings current at each event (dump, stacks, export): a segment's state
// starts from every record before it. They are read on demand, between two
// times, by a reader that decodes only the chunks holding any
// (format::ReadFilter::events false), with the filters the command's own
// readers have, so a segment sees what one reader of everything would have
// seen by then. Nothing is kept: a trace of millions of process records
// would otherwise hold them all in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "report/input/event_filter.h"
#include "report/input/trace_input.h"

namespace usdt::report {

class ProcessHistory {
 public:
  // nullopt when the input cannot be read again (it was read already) or
  // when most of its records lie in chunks with process records: each
  // thread would then read nearly all of it once more, and the command is
  // better off reading serially. The input must outlive the history.
  static std::optional<ProcessHistory> open(const TraceInput& input, const EventFilter& filter);

  // f(file, record) for every record at or after from and before to (on
  // the timeline), in the order one reader of everything returns them.
  // Safe on several threads at once.
  template <typename F>
  void replay_between(uint64_t from, uint64_t to, F&& f) const {
    if (from >= to) return;
    std::unique_ptr<TraceInput> pass = open_pass(from, to);
    Record r;
    while (pass->next(r)) {
      if (r.kind == format::RecordKind::process) f(r.file, *r.process);
    }
  }

 private:
  ProcessHistory(const TraceInput& input, std::vector<format::ReadFilter> filters)
      : input_(&input), filters_(std::move(filters)) {}
  std::unique_ptr<TraceInput> open_pass(uint64_t from, uint64_t to) const;

  const TraceInput* input_;
  std::vector<format::ReadFilter> filters_;  // per file
};

// The state a command's segment starts from (names, mappings: anything with
// on_process(file, record)), carried by each thread from one segment to the
// next it takes. A segment read to its end leaves the state as the history
// has it at the segment's end, and threads take segments in time order, so
// the next segment replays only the records in between: O(threads x
// records) for the whole input, where starting each segment afresh replays
// O(segments x records), quadratic in the trace's length (a dump cuts a
// segment every 64 Ki records).
template <typename State>
class CarriedStates {
 public:
  CarriedStates(const ProcessHistory& history, std::function<std::unique_ptr<State>()> make)
      : history_(history), make_(std::move(make)) {}

  // The calling thread's state as of begin (the segment's start), for one
  // segment: carried from the thread's last segment when that was read to
  // its end at or before begin (finished()), else made afresh.
  State& take(uint64_t begin) {
    Slot& slot = slot_of_this_thread();
    if (!slot.state || !slot.finished || slot.at > begin) {
      slot.state = make_();
      slot.at = 0;
    }
    history_.replay_between(slot.at, begin, [&](uint32_t file, const format::ProcessEvent& p) {
      slot.state->on_process(file, p);
    });
    slot.finished = false;
    return *slot.state;
  }
  // The segment taken last on this thread was read to end (exclusive): every
  // process record before end is in the state. A segment left unfinished
  // (an error, a stop) makes the thread's next state afresh.
  void finished(uint64_t end) {
    Slot& slot = slot_of_this_thread();
    slot.at = end;
    slot.finished = true;
  }

 private:
  struct Slot {
    std::unique_ptr<State> state;
    uint64_t at = 0;  // the state holds every record before this time
    bool finished = false;
  };
  // Only the map is shared; a slot is used by its own thread alone.
  Slot& slot_of_this_thread() {
    std::lock_guard lock(mutex_);
    return slots_[std::this_thread::get_id()];
  }

  const ProcessHistory& history_;
  std::function<std::unique_ptr<State>()> make_;
  std::mutex mutex_;
  std::unordered_map<std::thread::id, Slot> slots_;
};

}  // namespace usdt::report
