#include "report/stacks/stacks_pass.h"

namespace usdt::report {

void StacksPass::on_end() {
  // Name the distinct raw stacks and merge those with the same names.
  for (const auto& [raw_key, count] : raw_) {
    const StackStore::Stack& s = stacks_.get(raw_key / site_count_);
    const uint32_t site = static_cast<uint32_t>(raw_key % site_count_);
    NamedStack n;
    n.probe = catalog_->probe_of_site(site).shown_name;
    n.truncated = s.truncated;
    std::string k = n.probe;
    k += '\0';
    k += s.truncated ? '1' : '0';
    for (size_t i = 0; i < s.frames.size(); ++i) {
      const FrameSymbol& f = symbols_->resolve_frame(s.mappings.get(), s.frames.data(), i);
      n.frames.push_back(NamedFrame{f.function, f.object});
      k += '\0';
      k += f.function;
      k += '\0';
      k += f.object;
    }
    auto [it, added] = merged.try_emplace(std::move(k), std::move(n));
    it->second.count += count;
  }
  raw_.clear();
}

bool StacksPass::merge(StacksPass& later) {
  with_stack += later.with_stack;
  without_stack += later.without_stack;
  for (auto& [key, n] : later.merged) {
    auto [it, added] = merged.try_emplace(key, n);
    if (!added) it->second.count += n.count;
  }
  return true;
}

}  // namespace usdt::report
