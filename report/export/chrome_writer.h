// Writing Chrome trace events (the Trace Event Format document): instants,
// complete and async slices of pairs, the document's head and end. Shared
// by the serial and the segmented export (chrome_export.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/export/chrome_stack_frames.h"
#include "report/export/export_pass.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"
#include "report/output/json_writer.h"
#include "report/output/output_buffer.h"

namespace usdt::report {

// A call stack's "sf" value: its id when known, else (in a segment) its
// named stack, numbered when the text is written; neither: no stack.
struct StackRef {
  uint64_t id = 0;
  std::shared_ptr<const ChromeStack> named;
};

// Writes trace events: each is built with a JsonWriter into a scratch
// string, then appended to out with the ",\n" that separates events (but
// before the first, when told which one is first). Stack ids not known yet
// become holes (report/export/export_segments.h) in *holes.
class ChromeWriter {
 public:
  // first: the next event is the output's first (no separator).
  ChromeWriter(OutputBuffer& out, uint64_t start, bool first,
               std::vector<ExportPass::Hole>* holes = nullptr)
      : out_(out), start_(start), first_(first), holes_(holes), json_(event_) {}

  // Starts the next event: the writer is positioned before its '{'.
  JsonWriter& begin_event() {
    event_.clear();
    json_.reset_top_level();
    return json_;
  }
  void end_event() {
    size_t base = out_.size();
    if (!first_) {
      out_.append(kChromeSeparator);
      base += kChromeSeparator.size();
    }
    first_ = false;
    for (auto& [offset, named] : pending_) {
      ExportPass::Hole hole;
      hole.kind = ExportPass::Hole::Kind::stack_id;
      hole.offset = base + offset;
      hole.stack = std::move(named);
      holes_->push_back(std::move(hole));
    }
    pending_.clear();
    out_.append(event_);
    out_.maybe_flush();
  }

  // "key":ID of a stack, if the event has one.
  void stack_field(const char* key, const StackRef& stack) {
    if (stack.id != 0) {
      json_.key(key).uint(stack.id);
    } else if (stack.named) {
      json_.key(key).number_text("");  // the number comes when the text is written
      pending_.emplace_back(event_.size(), stack.named);
    }
  }

  // Microseconds with three decimals: "1000.000".
  static std::string us_text(uint64_t ns) {
    std::string s = std::to_string(ns / 1000);
    char frac[4] = {static_cast<char>('0' + ns % 1000 / 100), static_cast<char>('0' + ns % 100 / 10),
                    static_cast<char>('0' + ns % 10), 0};
    return s + "." + frac;
  }
  std::string ts_text(uint64_t time) const { return us_text(time >= start_ ? time - start_ : 0); }

  static constexpr std::string_view kChromeSeparator = ",\n";

 private:
  OutputBuffer& out_;
  uint64_t start_;
  bool first_;
  std::vector<ExportPass::Hole>* holes_;
  std::vector<std::pair<size_t, std::shared_ptr<const ChromeStack>>> pending_;  // in event_
  std::string event_;
  JsonWriter json_;
};

inline constexpr std::string_view kChromeHeader = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";

// Ends the traceEvents array and the document; stack_frames: the
// stackFrames object, if any.
void write_chrome_end(OutputBuffer& out, const std::string& stack_frames);

// Ids of processes and threads made distinct across hosts.
inline uint64_t chrome_id(uint32_t domain, uint32_t id) { return uint64_t{domain} * 10000000u + id; }
void write_ids(JsonWriter& j, uint64_t pid, uint64_t tid);

void write_instant(ChromeWriter& w, const ProbeCatalog& catalog, uint32_t site, uint32_t domain,
                   const format::Event& e, uint64_t time, const StackRef& sf);
// A pair's slice: named by its probes ("demo:req_start → req_done"; a
// function's own latency by the function), with the key and the start's and
// end's arguments in args. start_sf, end_sf: the stacks of the start and
// end events; start, end: the events (null when not at hand).
void write_pair(ChromeWriter& w, const ProbeCatalog& catalog, const LatencyPair& p, const KeySpec& key,
                const StackRef& start_sf, const StackRef& end_sf, const format::Event* start,
                const format::Event* end);
std::string pair_slice_name(const ProbeCatalog& catalog, const LatencyPair& p);

}  // namespace usdt::report
