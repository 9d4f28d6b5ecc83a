// Parallel reports by time: the trace's timeline is cut into as many
// segments as threads (TraceInput::segment_bounds), each thread reads its
// segment through its own readers and computes a partial result (a "pass"),
// and the command merges the passes in time order. A pass must come out the
// same, merged, as one pass over everything: counts add up, and what depends
// on earlier events (a start paired with a later end, a process's name) is
// carried across the cut by the merge. Decoding and the command's own work
// are both split, which handing decoded chunks to one thread could not do.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "report/trace_input.h"

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

// Runs run(k, segment input) for each segment k, on `threads` threads (the
// calling one among them) that take the segments in turn, then folds the
// passes in time order with merge(earlier, later) and returns the result,
// after the input took the segments' diagnostics (TraceInput::adopt_
// segments). nullopt, and the input left unread, when it cannot be cut or
// merge() returned false (the passes cannot give one pass's result): the
// command then reads it serially. An exception in any pass is rethrown once
// all threads have ended.
template <typename Pass, typename Run, typename Merge>
std::optional<Pass> read_in_segments(TraceInput& input, unsigned threads, Run run, Merge merge) {
  if (threads < 2) return std::nullopt;
  std::vector<uint64_t> bounds =
      guided_bounds(input.segment_bounds(threads * kPartsPerThread), threads);
  if (bounds.size() < 3) return std::nullopt;
  std::vector<std::unique_ptr<TraceInput>> segments(bounds.size() - 1);
  std::vector<std::optional<Pass>> passes(segments.size());
  std::vector<std::exception_ptr> errors(segments.size());
  std::atomic<size_t> next{0};
  // Each thread opens its segments itself: what a segment writes per record
  // then lies in that thread's own memory, not on a cache line that another
  // thread's segment shares (that cost 10% more CPU on 2 threads).
  auto work = [&] {
    for (size_t k = next++; k < segments.size(); k = next++) {
      try {
        segments[k] = input.open_segment(bounds[k], bounds[k + 1]);
        if (!segments[k]) throw std::runtime_error("cannot read the trace in parts");
        passes[k].emplace(run(k, *segments[k]));
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads && t < segments.size(); ++t) workers.emplace_back(work);
    work();
  }  // joined here
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (size_t k = 1; k < passes.size(); ++k) {
    if (!merge(*passes[0], *passes[k])) return std::nullopt;
  }
  input.adopt_segments(segments);
  return std::move(passes[0]);
}

}  // namespace usdt::report
