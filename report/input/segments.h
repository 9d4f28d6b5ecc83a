// Parallel reports by time: the trace's timeline is cut into segments
// (TraceInput::segment_bounds, guided_bounds below), each thread reads the
// segments it takes through readers of their own and computes a partial
// result (a "pass") of each, and the command merges the passes in time order. A pass must come out the
// same, merged, as one pass over everything: counts add up, and what depends
// on earlier events (a start paired with a later end, a process's name) is
// carried across the cut by the merge. Decoding and the command's own work
// are both split, which handing decoded chunks to one thread could not do.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "report/input/trace_input.h"

namespace usdt::report {

// The threads a command reads with: -j N, or every CPU when not given.
unsigned report_threads(uint32_t jobs_option);

// The segments, from the input's cut into parts of equal record counts:
// large ones first, then smaller and smaller ones (each about 1/(2 *
// threads) of what is left, at least one part), which the threads take in
// turn. A thread that finishes early (another process took its CPU for a
// while, its segment decoded faster) takes the next one, and at the end at
// most one small segment runs alone. Fewer bounds than parts + 1 when the
// input has too few chunks.
constexpr unsigned kPartsPerThread = 16;
std::vector<uint64_t> guided_bounds(const std::vector<uint64_t>& parts, unsigned threads);

// Runs run(k, count, segment input, stop) for each segment k of count, on `threads` threads
// (the calling one among them) that take the segments in turn, folds the passes
// in time order with merge(earlier, later) and returns the result, after
// the input took the segments' diagnostics (TraceInput::adopt_segments).
// nullopt, and the input left unread, when it cannot be cut or merge()
// returned false (the passes cannot give one pass's result): the command
// then reads it serially. An exception in any pass is rethrown once all
// threads have ended. A pass that sees early that it cannot be merged (a
// group limit reached) sets stop and returns; the passes running check stop
// now and then and end early, and the whole gives up at once.
//
// Memory: a pass is merged as soon as those before it are, so that at most
// about one pass per thread waits (a latency pass --by holds up to 1000
// histograms of 58 KiB); the segments' readers have let go of their
// buffers at their ends.
// A pass's "now and then" check of stop, at its n-th record (stop may be
// null: a serial read): true when it must end, because another pass stopped
// or because this one cannot be merged (over_limit), which it then tells
// the others.
inline bool pass_must_stop(std::atomic<bool>* stop, uint64_t n, bool over_limit) {
  if (stop == nullptr || n % 4096 != 0) return false;
  if (!*stop && !over_limit) return false;
  *stop = true;
  return true;
}

template <typename Pass, typename Run, typename Merge>
std::optional<Pass> read_in_segments(TraceInput& input, unsigned threads, Run run, Merge merge) {
  if (threads < 2) return std::nullopt;
  std::vector<uint64_t> bounds =
      guided_bounds(input.segment_bounds(threads * kPartsPerThread), threads);
  if (bounds.size() < 3) return std::nullopt;
  const size_t count = bounds.size() - 1;
  std::vector<std::unique_ptr<TraceInput>> segments(count);
  std::vector<std::optional<Pass>> passes(count);
  std::exception_ptr error;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;        // guards passes, merged, failed, error
  size_t merged = 0;    // passes[0] holds the fold of passes before this
  bool failed = false;  // a merge said no, or a pass threw
  auto work = [&] {
    for (size_t k = next++; k < count; k = next++) {
      std::optional<Pass> pass;
      try {
        // nullptr (the input was read already): the caller reads serially.
        segments[k] = input.open_segment(bounds[k], bounds[k + 1]);
        if (segments[k]) pass.emplace(run(k, count, *segments[k], stop));
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
      std::lock_guard<std::mutex> lk(mu);
      if (failed || stop || !pass) {
        failed = true;
        stop = true;
        next = count;  // the others stop after their current segment
        return;
      }
      passes[k] = std::move(pass);
      while (merged < count && passes[merged]) {
        if (merged > 0) {
          if (!merge(*passes[0], *passes[merged])) {
            failed = true;
            stop = true;
            next = count;
            return;
          }
          passes[merged].reset();
        }
        ++merged;
      }
    }
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads && t < count; ++t) workers.emplace_back(work);
    work();
  }  // joined here
  if (error) std::rethrow_exception(error);
  if (failed || stop || merged != count) return std::nullopt;
  input.adopt_segments(segments);
  return std::move(passes[0]);
}

}  // namespace usdt::report
