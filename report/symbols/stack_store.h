// Call stacks kept past the reader's next record, each distinct one once:
// latency --slowest keeps the stacks of its open starts, and millions of
// starts have few distinct stacks. A stack is kept with the mapping set of
// its event's time, so that it is named as it was then.
//
// Numbering an event's stack is per-event work, so it is cheap: the reader
// names each chunk's distinct stacks (Event::stack_key), and a small cache
// from (key, mapping set) to number answers all but the first event of each
// stack in a chunk; only those are compared by their addresses.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/trace_types.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

class StackStore {
 public:
  struct Stack {
    MappingsRef mappings;
    // The symbolizer that made mappings: its paths name them, so it names
    // the stack (a parallel segment's, once adopted into another store).
    StackSymbolizer* symbols = nullptr;
    std::vector<uint64_t> frames;  // innermost first
    bool truncated = false;
  };

  // The number of e's stack (>= 1), against the mappings of e's process in
  // file now; 0 when e has no stack.
  uint64_t add(StackSymbolizer& symbols, uint32_t file, const format::Event& e) {
    if (e.stack_depth == 0 && !e.stack_truncated) return 0;
    if (e.stack_key == 0) return add_by_addresses(symbols, file, e);
    const MappingSet* m = symbols.current(file, e.pid);
    const uint64_t generation = m != nullptr ? m->generation : 0;
    KeyedNumber& slot = by_key_[slot_of(e.stack_key, generation)];
    if (slot.key != e.stack_key || slot.generation != generation)
      slot = KeyedNumber{e.stack_key, generation, add_by_addresses(symbols, file, e)};
    return slot.number;
  }

  // The number of a stack of another store (a parallel segment's), added
  // here if new; 0 for tag 0. Its symbolizer must live as long as this.
  uint64_t adopt(const StackStore& other, uint64_t tag) {
    if (tag == 0) return 0;
    const Stack& s = other.get(tag);
    auto [number, added] =
        find_or_number(s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated);
    if (added) stacks_.push_back(s);
    return number;
  }

  // A number add() returned (not 0).
  const Stack& get(uint64_t number) const { return stacks_[number - 1]; }
  // The numbers so far are 1..size().
  size_t size() const { return stacks_.size(); }

 private:
  uint64_t add_by_addresses(StackSymbolizer& symbols, uint32_t file, const format::Event& e) {
    MappingsRef m = symbols.mappings(file, e.pid);
    auto [number, added] = find_or_number(m.get(), e.stack, e.stack_depth, e.stack_truncated);
    if (added)
      stacks_.push_back(Stack{std::move(m), &symbols,
                              std::vector<uint64_t>(e.stack, e.stack + e.stack_depth),
                              e.stack_truncated});
    return number;
  }

  // A direct-mapped cache: a slot holds the last (key, set) that fell in it.
  struct KeyedNumber {
    uint64_t key = 0;  // 0: empty (no event's stack_key)
    uint64_t generation = 0;
    uint64_t number = 0;
  };
  static constexpr size_t kKeyedSlots = 4096;
  static size_t slot_of(uint64_t key, uint64_t generation) {
    const uint64_t h = (key ^ generation * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h >> 52);  // the top 12 bits: kKeyedSlots
  }

  // A stack's number, and whether it is new (the caller then appends it):
  // stacks are the same when their frames, their cut and their mapping set
  // (its generation, unique in the process) are.
  std::pair<uint64_t, bool> find_or_number(const MappingSet* mappings, const uint64_t* frames,
                                           size_t depth, bool truncated) {
    const uint64_t generation = mappings != nullptr ? mappings->generation : 0;
    key_.assign(sizeof generation + 1 + depth * sizeof(uint64_t), '\0');
    std::memcpy(key_.data(), &generation, sizeof generation);
    key_[sizeof generation] = truncated ? 1 : 0;
    if (depth > 0)
      std::memcpy(key_.data() + sizeof generation + 1, frames, depth * sizeof(uint64_t));
    auto [it, added] = index_.try_emplace(key_, stacks_.size() + 1);
    return {it->second, added};
  }

  std::unordered_map<std::string, uint64_t> index_;
  std::vector<Stack> stacks_;
  std::string key_;
  std::vector<KeyedNumber> by_key_ = std::vector<KeyedNumber>(kKeyedSlots);
};

}  // namespace usdt::report
