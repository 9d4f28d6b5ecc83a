#include "record/stacks/process_mappings.h"

#include <algorithm>
#include <atomic>

namespace usdt::record {
namespace {

// Generations are unique across all ProcessMappings and all time, so that a
// copy put back (StackCollector rewinds a process's mappings to an earlier
// time) still has the number of exactly its contents.
uint64_t next_generation() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

void ProcessMappings::add(ExecMapping mapping) {
  if (mapping.end <= mapping.start) return;
  std::vector<ExecMapping> kept;
  kept.reserve(mappings_.size() + 2);
  for (ExecMapping& old : mappings_) {
    if (old.end <= mapping.start || old.start >= mapping.end) {
      kept.push_back(std::move(old));
      continue;
    }
    // Keep the parts of the old mapping on either side of the new one.
    if (old.start < mapping.start) {
      ExecMapping left = old;
      left.end = mapping.start;
      kept.push_back(std::move(left));
    }
    if (old.end > mapping.end) {
      ExecMapping right = old;
      right.file_offset = old.file_offset_of(mapping.end);
      right.start = mapping.end;
      kept.push_back(std::move(right));
    }
  }
  kept.push_back(std::move(mapping));
  std::sort(kept.begin(), kept.end(),
            [](const ExecMapping& a, const ExecMapping& b) { return a.start < b.start; });
  mappings_ = std::move(kept);
  generation_ = next_generation();
}

const ExecMapping* ProcessMappings::find(uint64_t address) const {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), address,
                             [](uint64_t a, const ExecMapping& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

void ProcessMappings::clear() {
  mappings_.clear();
  generation_ = next_generation();
}

}  // namespace usdt::record
