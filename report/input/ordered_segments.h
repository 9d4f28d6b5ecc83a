// Parallel output in time order (dump, export): the timeline is cut into segments
// (TraceInput::segment_bounds), threads format the segments they take into
// memory, each through a reader of its own, and each segment's text is
// written as soon as those before it are. Unlike report/input/segments.h nothing
// is merged: the output of a segment only has to follow the one before.
//
// Memory: a thread takes segment k only while k < written + ahead, so at
// most `ahead` segments' texts are held at once, whatever the trace's length.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "report/output/output_buffer.h"
#include "report/input/trace_input.h"

namespace usdt::report {

// Runs run(k, segment input, text) for each segment [bounds[k], bounds[k+1])
// (text: a MemoryText to fill, its bytes reused from an earlier segment)
// on `threads` threads (the calling one among them) and hands each text to
// emit(k, text) in segment order, one at a time; emit writes it and returns
// false when a write failed (the threads then stop, and so does this).
// The input takes the segments' diagnostics (TraceInput::adopt_segments).
// An exception in a run or an emit is rethrown once all threads have
// ended; nothing after the failed segment is written.
template <typename Run, typename Emit>
bool emit_segments_in_order(TraceInput& input, const std::vector<uint64_t>& bounds,
                            unsigned threads, size_t ahead, Run run, Emit emit) {
  const size_t count = bounds.size() - 1;
  std::vector<std::unique_ptr<TraceInput>> segments(count);
  std::vector<std::optional<MemoryText>> texts(count);
  std::vector<MemoryText> spare;  // written texts, their memory for the next
  std::mutex mu;                  // guards everything below and the writes
  std::condition_variable room;
  size_t next = 0;
  size_t written = 0;
  bool failed = false;
  bool write_failed = false;
  std::exception_ptr error;
  auto work = [&] {
    for (;;) {
      size_t k;
      {
        std::unique_lock<std::mutex> lk(mu);
        room.wait(lk, [&] { return failed || next >= count || next < written + ahead; });
        if (failed || next >= count) return;
        k = next++;
      }
      MemoryText text;
      {
        std::lock_guard<std::mutex> lk(mu);
        if (!spare.empty()) {
          text = std::move(spare.back());
          spare.pop_back();
        }
      }
      text.size = 0;
      try {
        segments[k] = input.open_segment(bounds[k], bounds[k + 1]);
        if (!segments[k]) throw std::logic_error("the trace was read before it was cut");
        run(k, *segments[k], text);
        segments[k]->release_reading();
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!error) error = std::current_exception();
        failed = true;
        room.notify_all();
        return;
      }
      std::lock_guard<std::mutex> lk(mu);
      texts[k] = std::move(text);
      // The one that completes the next segment in order writes it, and
      // those after it that are done.
      try {
        while (written < count && texts[written] && !failed) {
          MemoryText& t = *texts[written];
          if (!emit(written, t)) {
            write_failed = true;
            failed = true;  // the others stop: nothing more can be written
          }
          spare.push_back(std::move(t));
          texts[written].reset();
          ++written;
        }
      } catch (...) {
        if (!error) error = std::current_exception();
        failed = true;
      }
      room.notify_all();
    }
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads && t < count; ++t) workers.emplace_back(work);
    work();
  }  // joined here
  if (error) std::rethrow_exception(error);
  input.adopt_segments(segments);
  return !write_failed;
}

// emit_segments_in_order that writes each text to out as it is.
template <typename Run>
bool write_segments_in_order(TraceInput& input, const std::vector<uint64_t>& bounds,
                             unsigned threads, size_t ahead, std::FILE* out, Run run) {
  return emit_segments_in_order(input, bounds, threads, ahead, run,
                                [out](size_t, const MemoryText& t) {
                                  return std::fwrite(t.bytes.data(), 1, t.size, out) == t.size;
                                });
}

}  // namespace usdt::report
