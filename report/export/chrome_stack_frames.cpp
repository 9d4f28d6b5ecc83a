#include "report/export/chrome_stack_frames.h"

namespace usdt::report {

uint64_t ChromeStackFrames::node(uint64_t parent, const std::string& name,
                                 const std::string& category) {
  auto [it, added] = index_.try_emplace(std::make_tuple(parent, name, category), nodes_.size() + 1);
  if (added) nodes_.push_back(Node{parent, name, category});
  return it->second;
}

ChromeStack name_stack(StackSymbolizer& symbols, const StackStore::Stack& stack) {
  ChromeStack named;
  named.truncated = stack.truncated;
  named.frames.reserve(stack.frames.size());
  for (size_t i = stack.frames.size(); i-- > 0;) {
    const FrameSymbol& f = symbols.resolve_frame(stack.mappings.get(), stack.frames.data(), i);
    named.frames.emplace_back(f.function, f.object);
  }
  return named;
}

uint64_t ChromeStackFrames::id_of(const ChromeStack& stack) {
  uint64_t id = stack.truncated ? node(0, "[truncated]", "") : 0;
  for (const auto& [function, object] : stack.frames) id = node(id, function, object);
  return id;
}

void ChromeStackFrames::write(JsonWriter& w) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    w.key(std::to_string(i + 1))
        .begin_object()
        .key("name")
        .string(n.name)
        .key("category")
        .string(n.category);
    if (n.parent != 0) w.key("parent").string(std::to_string(n.parent));
    w.end_object();
  }
}

}  // namespace usdt::report
