// The exports (Chrome, ClickHouse) on every core, in record order, through
// the event pass (report/input/event_pass.h, write_in_order). An export
// writes each event, or each start/end pair when its end comes, in the order
// one reader returns the records. Cut into segments
// (report/input/ordered_segments.h), each segment's records are formatted into
// memory by an exporter, and its text is written once those before it are.
//
// An end whose start lies in an earlier segment cannot be paired there: the
// segment's LatencyAnalyzer keeps it (LatencyConfig::later_segment,
// Outcome::kept_end) and the exporter marks its place in the text (a Hole).
// When the text is written, the analyzer of everything before it pairs the
// kept ends (LatencyAnalyzer::merge), and the exporter fills each hole with
// the pair, or with the end alone. Starts are filed in a StartBook under the
// tag the analyzer carries, numbers that grow in record order, so that the
// starts never paired come out in the order one reader would give them.
// Chrome's stack ids, numbered by first use over the whole output, are holes
// too: a segment names its events' stacks, the writer numbers them in order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/input/event_copy.h"
#include "report/input/event_pass.h"
#include "report/input/process_names.h"
#include "report/output/output_buffer.h"
#include "report/pairing/latency_analyzer.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

struct ChromeStack;  // report/export/chrome_stack_frames.h
class StackSymbolizer;

// A start event kept until its end comes (or the input ends).
struct ExportStart {
  uint32_t file = 0;
  uint32_t domain = 0;
  uint32_t site = 0;  // global
  uint64_t time = 0;
  std::optional<std::string> comm;  // the thread's name at the start, if asked for
  // Its call stack, if any, named; stack_tag: its number in the read that
  // filed it (0: none).
  std::shared_ptr<const ChromeStack> stack;
  uint64_t stack_tag = 0;
  EventCopy copy;
};

// The open starts by number. A segment's numbers start at its index << 40,
// so that they grow in record order across segments too. Starts a function
// return showed to be abandoned stay until the end (they are few).
class StartBook {
 public:
  explicit StartBook(uint64_t first_number = 1) : next_(first_number) {}

  // The number the next add() files under: the tag to give the analyzer.
  uint64_t next_number() const { return next_; }
  void add(ExportStart start) { starts_.emplace(next_++, std::move(start)); }
  // The start filed under number, taken out of the book; nullopt if none.
  std::optional<ExportStart> take(uint64_t number) {
    auto it = starts_.find(number);
    if (it == starts_.end()) return std::nullopt;
    std::optional<ExportStart> s(std::move(it->second));
    starts_.erase(it);
    return s;
  }
  // Takes the starts of a later segment.
  void absorb(StartBook& later) { starts_.merge(later.starts_); }

 private:
  uint64_t next_;
  std::unordered_map<uint64_t, ExportStart> starts_;
};

// What an export's read leaves besides its text.
struct ExportPass {
  std::optional<LatencyAnalyzer> analyzer;  // with --start/--end
  StartBook book;
  // Where text goes that this segment cannot write: an end kept by the
  // analyzer (kept_end), or the number of a call stack (stack_id).
  // Small: a Chrome segment has one per event with a stack.
  struct Hole {
    enum class Kind : uint8_t { kept_end, stack_id };
    // A kept end's event, for an exporter that writes it when it stays
    // unpaired (Chrome's instant).
    struct End {
      uint32_t domain = 0;
      uint32_t site = 0;  // global
      uint64_t time = 0;
      EventCopy event;
    };
    Kind kind = Kind::kept_end;
    size_t offset = 0;
    std::unique_ptr<End> end;
    std::shared_ptr<const ChromeStack> stack;  // the end's, or the one to number
  };
  std::vector<Hole> holes;  // in text order; one per Outcome::kept_end
  uint64_t pairs = 0;       // pairs written
  uint64_t events = 0;      // events written alone (not as part of a pair)
  bool wrote_text = false;  // export_in_segments: anything reached the file
};

// What a segment's export starts from: the names and mappings as of its
// start, kept up to date by its process records.
struct ExportState {
  const std::vector<uint32_t>* domains = nullptr;
  ProcessNames names;
  std::unique_ptr<StackSymbolizer> symbols;  // when the exporter wants_symbols()
  void on_process(uint32_t file, const format::ProcessEvent& p) {
    names.on_process((*domains)[file], p);
    if (symbols) symbols->on_process(file, p);
  }
};

// One segment's (or the whole input's) formatting of the events the pass
// accepts, into its pass and buffer.
class ExportReader {
 public:
  virtual ~ExportReader() = default;
  virtual void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e,
                        uint64_t time) = 0;
};

class SegmentExporter {
 public:
  virtual ~SegmentExporter() = default;
  // The reader of a segment: it formats the segment's events into out,
  // keeping pass's analyzer and book up to date; state: the names (and
  // symbols, when wants_symbols()) as of the segment's start, kept up to
  // date for it. segment.alone(): the whole input, read serially, its text
  // going straight to the file.
  virtual std::unique_ptr<ExportReader> reader(const Segment& segment, ExportState& state, ExportPass& pass,
                                               OutputBuffer& out) = 0;
  virtual bool wants_symbols() const { return false; }
  // The text of a hole: of a kept end, the pair it closed (with its start)
  // or, pair null, the end alone; of a stack, its number. Counts what it
  // wrote into *counts.
  virtual void fill_hole(const ExportPass::Hole& hole, const LatencyPair* pair, ExportStart* start,
                         OutputBuffer& out, ExportPass* counts) = 0;
  // A segment's holes are all filled (what was kept for them can go).
  virtual void end_of_pass() {}
  // Text each event's text begins with in a segment and that the first
  // event of the output must not have (Chrome's ",\n" between events).
  virtual std::string_view separator() const { return {}; }
};

// Runs exporter over the pass's input, in segments on several threads when
// it can be cut, and writes the texts to out in record order. whole: the
// fold of the passes (the analyzer of everything, made from pairing; the
// starts never paired; the counts); final_names, if not null: the names
// after every process record.
EventPass::Written export_records(EventPass& pass, const std::optional<LatencyConfig>& pairing,
                                  SegmentExporter& exporter, std::FILE* out, ExportPass* whole,
                                  ProcessNames* final_names);

}  // namespace usdt::report
