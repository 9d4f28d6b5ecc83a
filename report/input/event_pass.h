// One pass over the records of a report's input, for every command. The
// pass owns what every command would otherwise repeat: the filter (and the
// readers' hints made from it), each event's global site and key domain,
// the runs of decoded events of one file, process and lost records, the
// time segments read on several threads, and how their results come back
// together in time order. A command supplies a consumer, which says what it
// does with one record, and how two partial results merge:
//
//   struct Count : PassConsumer {            // a per-probe event count
//     explicit Count(const ProbeCatalog& c) : catalog(&c), n(c.probes().size()) {}
//     void on_event(uint32_t site, uint32_t, uint32_t, const format::Event&, uint64_t) {
//       ++n[catalog->site(site).probe];
//     }
//     bool merge(Count& later) { ... add later.n ...; return true; }
//     const ProbeCatalog* catalog; std::vector<uint64_t> n;
//   };
//   Count whole = pass.fold<Count>([&](const Segment&) { return Count(pass.catalog()); },
//                                  [](Count& a, Count& b) { return a.merge(b); });
//
// Serial and parallel reads are the same path: one segment (the whole
// input) or many. Three shapes of pass:
//   fold             partial results merged in time order (summary, hist,
//                    latency, stacks); each segment's consumer is told its
//                    place (Segment), so that what crosses a cut (an end
//                    whose start came earlier, a fork whose parent was named
//                    earlier) can be kept for the merge;
//   fold_from_state  the same, each segment's consumer starting from the
//                    process state (names, mappings) as of its start,
//                    carried by each thread from its last segment
//                    (report/input/process_history.h);
//   write_in_order   each segment's text formatted into memory and written
//                    as soon as those before it are (dump, export).
#pragma once

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/trace_types.h"
#include "report/input/event_filter.h"
#include "report/input/file_completeness.h"
#include "report/input/ordered_segments.h"
#include "report/input/process_history.h"
#include "report/input/query.h"
#include "report/input/segments.h"
#include "report/input/trace_input.h"
#include "report/output/output_buffer.h"

namespace usdt::report {

// Where a consumer's records come from: segment index of count, in time
// order, covering [begin, end) of the timeline. One segment of one: the
// whole input, read serially.
struct Segment {
  size_t index = 0;
  size_t count = 1;
  uint64_t begin = 0;
  uint64_t end = UINT64_MAX;

  bool alone() const { return count == 1; }
  bool later() const { return index > 0; }
};

// The handlers a consumer need not write. on_event(site, file, domain, e,
// time) has no default: every consumer looks at events. It gets the events
// the filter accepts, site being the global site (never kUnknownSite).
struct PassConsumer {
  // A process record (comm, exec, fork, exit, mmap) of file; domain: the
  // file's key domain (its index when hosts differ, else 0).
  void on_process(uint32_t /*file*/, uint32_t /*domain*/, const format::ProcessEvent&) {}
  // Events the kernel lost. site: the global site of the record's site id,
  // kUnknownSite when it names none (or one the file does not list).
  // Unfiltered: the consumer decides what counts.
  void on_lost(uint32_t /*file*/, uint32_t /*site*/, const format::LostEvent&, uint64_t /*time*/) {}
  // An event whose site the file does not list (a damaged event), when the
  // filter selects every probe and the event is in its time window.
  void on_unlisted_event(uint32_t /*file*/, uint32_t /*domain*/, const format::Event&, uint64_t /*time*/) {}
  // A consumer that needs the time of every record read, filtered out or
  // not (summary: the recording's span), says so; on_record_time(t) then
  // comes before each record, once per run of events with its last time.
  static constexpr bool kWatchesTime = false;
  void on_record_time(uint64_t /*time*/) {}
  // The input (or segment) read to its end, on the thread that read it,
  // while what it was given (a carried state) is still as the read left it.
  void on_end() {}
  // True when this partial result can no longer be merged (a group limit
  // reached): a parallel pass then stops and the input is read serially.
  bool over_limit() const { return false; }
};

// How a consumer of fold_from_state uses the state it is given: it keeps
// it up to date through the segment (advances), or copies it and leaves
// it as it was (copies).
enum class StateUse { advances, copies };

class EventPass {
 public:
  struct Options {
    // false: the command looks at no argument, which the readers then leave
    // undecoded (a fifth of the reading).
    bool reads_arguments = true;
    uint32_t jobs = 0;  // -j; 0: every CPU
  };

  // Compiles the filter for the input and hands each file's reader its
  // hint. Fails (with the probes the trace has) when a --probe pattern
  // selects no probe. The input must outlive the pass.
  static Result<EventPass> open(TraceInput& input, const FilterOptions& filter, Options options);

  TraceInput& input() const { return *input_; }
  const ProbeCatalog& catalog() const { return input_->catalog(); }
  const EventFilter& filter() const { return filter_; }
  const std::vector<uint32_t>& domains() const { return domains_; }
  unsigned threads() const { return threads_; }

  // Narrows the readers' site hint to the sites a command looks at (e.g.
  // latency's start and end sites among those the filter selects), so that
  // chunks without them are not even decompressed; wanted is per global
  // site. arguments: whether those events' arguments are decoded.
  void read_only_sites(const std::vector<uint8_t>& wanted, bool arguments);

  // The records of in, into c. stop: a parallel read's, checked now and then.
  template <typename Consumer>
  void read(TraceInput& in, Consumer& c, std::atomic<bool>* stop = nullptr) const;

  // The whole input in one consumer: make(const Segment&) makes each
  // segment's, merge(earlier, later) folds a later segment's into an earlier
  // one's and returns false when the two cannot give one read's result (the
  // input is then read serially).
  template <typename Consumer, typename Make, typename Merge>
  Consumer fold(Make make, Merge merge);

  // fold, each segment's consumer made by make(const Segment&, State&) from
  // the process state as of the segment's start (a fresh() one for a
  // serial read).
  template <typename Consumer, typename State, typename Make, typename Merge>
  Consumer fold_from_state(std::function<std::unique_ptr<State>()> fresh, StateUse use, Make make,
                           Merge merge);

  // Output in record order: make(const Segment&, State&, OutputBuffer&)
  // makes the consumer that formats a segment's records into the buffer
  // (keeping the state up to date through them); emit(k, const MemoryText&)
  // writes segment k's text, in order, and returns false on a failed write.
  // A serial read (one thread, or an input that cannot be cut or whose
  // process records are not worth reading apart) makes one consumer, alone,
  // on a buffer that writes to out, and emit is not called; its state, once
  // read, goes to *serial_state when given.
  struct Written {
    bool ok = true;            // every write succeeded
    bool in_segments = false;  // the input was read in segments
  };
  template <typename Consumer, typename State, typename Make, typename Emit>
  Written write_in_order(std::function<std::unique_ptr<State>()> fresh, std::FILE* out, Make make,
                         Emit emit, std::unique_ptr<State>* serial_state = nullptr);

  // After reading: one message per problem a file had (truncation,
  // corrupted chunks, skipped records), for the command to print as warnings.
  std::vector<std::string> read_problems() const;
  // After reading: up to when each damaged file's events are complete
  // (report/input/file_completeness.h), found once, on the first call.
  const std::vector<FileCompleteness>& completeness() const;

 private:
  EventPass(TraceInput& input, EventFilter filter, unsigned threads);
  // fold's parallel part; done(segment) after each segment read to its end.
  template <typename Consumer, typename Make, typename Merge, typename Done>
  std::optional<Consumer> fold_segments(Make make, Merge merge, Done done);
  // The bounds of write_in_order's segments; fewer than 3 when it reads serially.
  std::vector<uint64_t> ordered_bounds() const;

  TraceInput* input_;
  EventFilter filter_;
  std::vector<uint32_t> domains_;
  unsigned threads_;
  mutable std::optional<std::vector<FileCompleteness>> completeness_;
};

// ---------------------------------------------------------------------------

template <typename Consumer>
void EventPass::read(TraceInput& in, Consumer& c, std::atomic<bool>* stop) const {
  const ProbeCatalog& catalog = in.catalog();
  const EventFilter& filter = filter_;
  // Unfiltered, an event's only test is that the file lists its site.
  const bool filtered = filter.restricts_anything();
  const bool unlisted_wanted = filter.selects_every_site();
  // Inlined in the loop over a run; the run's first event, whose time may
  // be on another clock, goes through deliver_first: one call per run, and
  // the consumer's code is not duplicated in this function.
  auto deliver = [&](ProbeCatalog::FileSites sites, uint32_t file, uint32_t domain,
                     const format::Event& e, uint64_t time) __attribute__((always_inline)) {
    const uint32_t site = sites.at(e.site_id);
    if (site == ProbeCatalog::kUnknownSite) {
      if (unlisted_wanted && filter.in_time_window(time)) c.on_unlisted_event(file, domain, e, time);
      return;
    }
    if (filtered && !filter.accepts(site, e, time)) return;
    c.on_event(site, file, domain, e, time);
  };
  auto deliver_first = [&](const Record& first) __attribute__((noinline)) {
    deliver(catalog.sites_of(first.file), first.file, domains_[first.file], *first.event,
            first.time);
  };
  Record r;
  for (uint64_t n = 0; in.next(r); ++n) {
    if (pass_must_stop(stop, n, c.over_limit())) return;
    if constexpr (Consumer::kWatchesTime) c.on_record_time(r.time);
    switch (r.kind) {
      case format::RecordKind::event: {
        deliver_first(r);
        // The events of a run that follow, all of one file, in one loop with
        // the file's site table and domain at hand.
        const format::Event* run = nullptr;
        uint32_t file = 0;
        uint32_t k = in.take_rest_of_run(&run, &file);
        if (k == 0) break;
        const ProbeCatalog::FileSites sites = catalog.sites_of(file);
        const uint32_t domain = domains_[file];
        for (; k != 0; --k, ++run) deliver(sites, file, domain, *run, run->time_ns);
        if constexpr (Consumer::kWatchesTime) c.on_record_time((run - 1)->time_ns);
        break;
      }
      case format::RecordKind::process:
        c.on_process(r.file, domains_[r.file], *r.process);
        break;
      case format::RecordKind::lost: {
        const uint32_t site = r.lost->site_id == format::kNoSite
                                  ? ProbeCatalog::kUnknownSite
                                  : catalog.global_site(r.file, r.lost->site_id);
        c.on_lost(r.file, site, *r.lost, r.time);
        break;
      }
    }
  }
  c.on_end();
}

template <typename Consumer, typename Make, typename Merge, typename Done>
std::optional<Consumer> EventPass::fold_segments(Make make, Merge merge, Done done) {
  return read_in_segments<Consumer>(
      *input_, threads_,
      [&](size_t k, size_t count, TraceInput& in, std::atomic<bool>& stop) {
        const Segment segment{k, count, in.segment_begin(), in.segment_end()};
        Consumer c = make(segment);
        read(in, c, &stop);
        if (!stop) done(segment);
        return c;
      },
      merge);
}

template <typename Consumer, typename Make, typename Merge>
Consumer EventPass::fold(Make make, Merge merge) {
  if (std::optional<Consumer> whole = fold_segments<Consumer>(make, merge, [](const Segment&) {})) {
    return std::move(*whole);
  }
  Consumer c = make(Segment{});
  read(*input_, c);
  return c;
}

template <typename Consumer, typename State, typename Make, typename Merge>
Consumer EventPass::fold_from_state(std::function<std::unique_ptr<State>()> fresh, StateUse use,
                                    Make make, Merge merge) {
  std::optional<ProcessHistory> history;
  if (threads_ > 1) history = ProcessHistory::open(*input_, filter_);
  if (history) {
    CarriedStates<State> carried(*history, fresh);
    std::optional<Consumer> whole = fold_segments<Consumer>(
        [&](const Segment& s) { return make(s, carried.take(s.begin)); }, merge,
        [&](const Segment& s) { carried.finished(use == StateUse::advances ? s.end : s.begin); });
    if (whole) return std::move(*whole);
  }
  std::unique_ptr<State> start = fresh();
  Consumer c = make(Segment{}, *start);
  read(*input_, c);
  return c;
}

template <typename Consumer, typename State, typename Make, typename Emit>
EventPass::Written EventPass::write_in_order(std::function<std::unique_ptr<State>()> fresh,
                                             std::FILE* out, Make make, Emit emit,
                                             std::unique_ptr<State>* serial_state) {
  const std::vector<uint64_t> bounds = ordered_bounds();
  std::optional<ProcessHistory> history;
  if (bounds.size() >= 3) history = ProcessHistory::open(*input_, filter_);
  if (!history) {
    std::unique_ptr<State> state = fresh();
    OutputBuffer buffer(out);
    {
      Consumer c = make(Segment{}, *state, buffer);
      read(*input_, c);
    }
    buffer.flush();
    if (serial_state != nullptr) *serial_state = std::move(state);
    return Written{!buffer.failed(), false};
  }
  CarriedStates<State> carried(*history, fresh);
  const size_t count = bounds.size() - 1;
  const bool ok = emit_segments_in_order(
      *input_, bounds, threads_, 2 * size_t{threads_},
      [&](size_t k, TraceInput& in, MemoryText& text) {
        const Segment segment{k, count, bounds[k], bounds[k + 1]};
        State& state = carried.take(segment.begin);
        {
          OutputBuffer buffer(&text);
          Consumer c = make(segment, state, buffer);
          read(in, c);
        }
        carried.finished(segment.end);
      },
      emit);
  return Written{ok, true};
}

}  // namespace usdt::report
