// The call stacks of the selected events, a consumer of the event pass
// (report/input/event_pass.h) that stacks and flamegraph share: the events
// counted per raw stack, then, at the end of its input, the distinct raw
// stacks named and merged by probe and function names.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/input/event_pass.h"
#include "report/symbols/stack_store.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

struct NamedFrame {
  std::string function;
  std::string object;
};

struct NamedStack {
  std::string probe;
  std::vector<NamedFrame> frames;  // innermost first
  bool truncated = false;
  uint64_t count = 0;
};

// What one reader (of everything, or of one segment) found: its events'
// stacks, named and merged. Segments merge by adding counts per name; the
// map's order does not depend on how the trace was cut.
class StacksPass : public PassConsumer {
 public:
  // symbols: the mappings as of the input's start, kept up to date here.
  StacksPass(const ProbeCatalog& catalog, StackSymbolizer& symbols)
      : catalog_(&catalog), symbols_(&symbols), site_count_(std::max<uint64_t>(catalog.site_count(), 1)) {}

  void on_event(uint32_t site, uint32_t file, uint32_t, const format::Event& e, uint64_t) {
    const uint64_t stack = stacks_.add(*symbols_, file, e);
    if (stack == 0) {
      ++without_stack;
      return;
    }
    ++with_stack;
    // A stack's first frame is its probe's address, so nearly every stack
    // is one site's: its count is in a vector, others' in the map.
    if (stack >= first_site_.size()) first_site_.resize(stack + 1, Count{});
    Count& c = first_site_[stack];
    if (c.events == 0) c.site = site;
    if (c.site == site) {
      ++c.events;
    } else {
      ++raw_[stack * site_count_ + site];
    }
  }
  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) { symbols_->on_process(file, p); }
  void on_end();  // names the raw stacks
  bool merge(StacksPass& later);

  std::map<std::string, NamedStack> merged;  // ordered: ties print in a fixed order
  uint64_t with_stack = 0, without_stack = 0;

 private:
  const ProbeCatalog* catalog_;
  StackSymbolizer* symbols_;
  void name_raw_stack(uint64_t stack, uint32_t site, uint64_t count);

  uint64_t site_count_;
  StackStore stacks_;
  // Events per (stack number, site): of the first site seen with each stack
  // number (indexed by it), and of any other site at stack * site_count + site.
  struct Count {
    uint32_t site = 0;
    uint64_t events = 0;
  };
  std::vector<Count> first_site_;
  std::unordered_map<uint64_t, uint64_t> raw_;
};

// One line of `stacks --folded` (flamegraph.pl's input): the probe, then
// "[truncated]" for a cut stack, then the functions from the outermost to
// the innermost; ';' in names shows as ':' and line breaks as spaces.
// Stacks that differ only in their frames' objects are one line: objects
// holds, per name, the object of the hottest stack that made the line ("" for
// the probe and the truncation mark).
struct FoldedStack {
  std::vector<std::string> frames;
  std::vector<std::string> objects;
  uint64_t count = 0;
};

// The folded lines, most events first, ties in the order of their text.
std::vector<FoldedStack> folded_stacks(const StacksPass& whole);

// The stacks of the events filter selects in input, read on jobs threads
// (0: every CPU), each segment's symbols starting from the process records
// before it; the pass's read problems are appended to warnings. Fails when
// a --probe pattern selects no probe.
Result<StacksPass> read_stacks(TraceInput& input, const FilterOptions& filter, uint32_t jobs,
                               std::vector<std::string>* warnings);

// Why there is nothing to draw (no events, or events without stacks), or
// "" when whole has stacks.
std::string why_no_stacks(const StacksPass& whole);

}  // namespace usdt::report
