#include "report/symbols/stacks_pass.h"

#include <algorithm>
#include <memory>

namespace usdt::report {

void StacksPass::on_end() {
  for (uint64_t stack = 1; stack < first_site_.size(); ++stack) {
    const Count& c = first_site_[stack];
    if (c.events > 0) name_raw_stack(stack, c.site, c.events);
  }
  for (const auto& [raw_key, count] : raw_)
    name_raw_stack(raw_key / site_count_, static_cast<uint32_t>(raw_key % site_count_), count);
  first_site_.clear();
  raw_.clear();
}

// Names a distinct raw stack and merges it with those of the same names.
void StacksPass::name_raw_stack(uint64_t stack, uint32_t site, uint64_t count) {
  const StackStore::Stack& s = stacks_.get(stack);
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

bool StacksPass::merge(StacksPass& later) {
  with_stack += later.with_stack;
  without_stack += later.without_stack;
  for (auto& [key, n] : later.merged) {
    auto [it, added] = merged.try_emplace(key, n);
    if (!added) it->second.count += n.count;
  }
  return true;
}

namespace {

std::string folded_name(std::string s) {
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

std::vector<FoldedStack> folded_stacks(const StacksPass& whole) {
  // The distinct named stacks, hottest first (ties in the map's fixed order).
  std::vector<const NamedStack*> order;
  for (const auto& [unused, n] : whole.merged) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [](const NamedStack* a, const NamedStack* b) { return a->count > b->count; });
  std::map<std::string, FoldedStack> lines;  // by the line's text
  for (const NamedStack* n : order) {
    FoldedStack f;
    f.frames.push_back(folded_name(n->probe));
    f.objects.emplace_back();
    if (n->truncated) {
      f.frames.emplace_back("[truncated]");
      f.objects.emplace_back();
    }
    for (size_t i = n->frames.size(); i-- > 0;) {
      f.frames.push_back(folded_name(n->frames[i].function));
      f.objects.push_back(n->frames[i].object);
    }
    std::string text;  // the line as printed, without its count
    for (size_t i = 0; i < f.frames.size(); ++i) text += (i > 0 ? ";" : "") + f.frames[i];
    auto [it, added] = lines.try_emplace(std::move(text), std::move(f));
    it->second.count += n->count;
  }
  std::vector<FoldedStack> out;
  out.reserve(lines.size());
  for (auto& [text, f] : lines) out.push_back(std::move(f));
  std::stable_sort(out.begin(), out.end(), [](const FoldedStack& a, const FoldedStack& b) { return a.count > b.count; });
  return out;
}

Result<StacksPass> read_stacks(TraceInput& input, const FilterOptions& filter, uint32_t jobs,
                               std::vector<std::string>* warnings) {
  // Stacks and probes only: no argument is decoded.
  Result<EventPass> pass = EventPass::open(input, filter, {.reads_arguments = false, .jobs = jobs});
  if (!pass) return pass.error();
  StacksPass whole = pass->fold_from_state<StacksPass, StackSymbolizer>(
      [&] { return std::make_unique<StackSymbolizer>(input.files()); }, StateUse::advances,
      [&](const Segment&, StackSymbolizer& symbols) { return StacksPass(input.catalog(), symbols); },
      [](StacksPass& earlier, StacksPass& later) { return earlier.merge(later); });
  for (const std::string& w : pass->read_problems()) warnings->push_back(w);
  return whole;
}

std::string why_no_stacks(const StacksPass& whole) {
  if (whole.with_stack > 0) return "";
  return whole.without_stack == 0 ? "no events selected, so no call stacks to show"
                                  : "the selected events have no call stacks (record them with usdt-record -g)";
}

}  // namespace usdt::report
