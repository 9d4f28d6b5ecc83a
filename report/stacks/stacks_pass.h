// stacks' consumer of the event pass (report/input/event_pass.h): the
// selected events counted per raw stack, then, at the end of its input, the
// distinct raw stacks named and merged by probe and function names.
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
    ++raw_[stack * site_count_ + site];
  }
  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) { symbols_->on_process(file, p); }
  void on_end();  // names the raw stacks
  bool merge(StacksPass& later);

  std::map<std::string, NamedStack> merged;  // ordered: ties print in a fixed order
  uint64_t with_stack = 0, without_stack = 0;

 private:
  const ProbeCatalog* catalog_;
  StackSymbolizer* symbols_;
  uint64_t site_count_;
  StackStore stacks_;
  // Events per (stack number, site): stack * site_count + site.
  std::unordered_map<uint64_t, uint64_t> raw_;
};

// The output: folded lines, JSON or text.
std::string stacks_folded(const StacksPass& whole);
std::string stacks_json(const StacksPass& whole);
std::string stacks_text(const StacksPass& whole);

}  // namespace usdt::report
