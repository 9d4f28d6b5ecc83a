#include "report/chrome_stack_frames.h"

namespace usdt::report {

uint64_t ChromeStackFrames::node(uint64_t parent, const std::string& name,
                                 const std::string& category) {
  auto [it, added] = index_.try_emplace(std::make_tuple(parent, name, category), nodes_.size() + 1);
  if (added) nodes_.push_back(Node{parent, name, category});
  return it->second;
}

uint64_t ChromeStackFrames::id_of(uint64_t tag) {
  if (tag == 0) return 0;
  if (by_tag_.size() <= tag) by_tag_.resize(tag + 1, 0);
  if (by_tag_[tag] != 0) return by_tag_[tag];
  const StackStore::Stack& s = stacks_.get(tag);
  uint64_t id = s.truncated ? node(0, "[truncated]", "") : 0;
  for (size_t i = s.frames.size(); i-- > 0;) {
    const FrameSymbol& f = symbols_.resolve_frame(s.mappings.get(), s.frames.data(), i);
    id = node(id, f.function, f.object);
  }
  by_tag_[tag] = id;
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
