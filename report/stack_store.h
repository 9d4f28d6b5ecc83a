// Call stacks kept past the reader's next record, each distinct one once:
// latency --slowest keeps the stacks of its open starts, and millions of
// starts have few distinct stacks. A stack is kept with the mapping set of
// its event's time, so that it is named as it was then.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "report/stack_symbolizer.h"

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
    MappingsRef m = symbols.mappings(file, e.pid);
    const uint64_t generation = m ? m->generation : 0;
    key_.assign(sizeof generation + 1 + e.stack_depth * sizeof(uint64_t), '\0');
    std::memcpy(key_.data(), &generation, sizeof generation);
    key_[sizeof generation] = e.stack_truncated ? 1 : 0;
    if (e.stack_depth > 0)
      std::memcpy(key_.data() + sizeof generation + 1, e.stack, e.stack_depth * sizeof(uint64_t));
    auto [it, added] = index_.try_emplace(key_, stacks_.size() + 1);
    if (added)
      stacks_.push_back(Stack{std::move(m), &symbols,
                              std::vector<uint64_t>(e.stack, e.stack + e.stack_depth),
                              e.stack_truncated});
    return it->second;
  }

  // The number of a stack of another store (a parallel segment's), added
  // here if new; 0 for tag 0. Its symbolizer must live as long as this.
  uint64_t adopt(const StackStore& other, uint64_t tag) {
    if (tag == 0) return 0;
    const Stack& s = other.get(tag);
    const uint64_t generation = s.mappings ? s.mappings->generation : 0;
    key_.assign(sizeof generation + 1 + s.frames.size() * sizeof(uint64_t), '\0');
    std::memcpy(key_.data(), &generation, sizeof generation);
    key_[sizeof generation] = s.truncated ? 1 : 0;
    if (!s.frames.empty())
      std::memcpy(key_.data() + sizeof generation + 1, s.frames.data(),
                  s.frames.size() * sizeof(uint64_t));
    auto [it, added] = index_.try_emplace(key_, stacks_.size() + 1);
    if (added) stacks_.push_back(s);
    return it->second;
  }

  // A number add() returned (not 0).
  const Stack& get(uint64_t number) const { return stacks_[number - 1]; }

 private:
  std::unordered_map<std::string, uint64_t> index_;
  std::vector<Stack> stacks_;
  std::string key_;
};

}  // namespace usdt::report
