// The stackFrames dictionary of a Chrome export (Trace Event Format): every
// distinct call stack of the exported events becomes a path in one tree of
// frames, root = the outermost frame, and an event names its innermost frame
// with "sf" (an X slice the stack of its end with "esf"). Nodes are keyed by
// (parent, function, object), so stacks share their common outer frames. A
// frame's name is its function (without offset: one node per function of a
// path, as a flame chart wants it), its category the object's path. A stack
// the recorder cut short starts from a "[truncated]" root.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "report/json_writer.h"
#include "report/stack_store.h"
#include "report/stack_symbolizer.h"

namespace usdt::report {

class ChromeStackFrames {
 public:
  ChromeStackFrames(StackSymbolizer& symbols, const StackStore& stacks)
      : symbols_(symbols), stacks_(stacks) {}

  // The node id of a stored stack's innermost frame (>= 1); 0 for tag 0
  // (no stack).
  uint64_t id_of(uint64_t tag);

  bool empty() const { return nodes_.empty(); }

  // The members of the stackFrames object, into the object w has open:
  // "ID":{"name":..,"category":..,"parent":"ID"}.
  void write(JsonWriter& w) const;

 private:
  struct Node {
    uint64_t parent = 0;  // 0 = a root
    std::string name;
    std::string category;
  };
  uint64_t node(uint64_t parent, const std::string& name, const std::string& category);

  StackSymbolizer& symbols_;
  const StackStore& stacks_;
  std::vector<Node> nodes_;  // id i + 1
  std::map<std::tuple<uint64_t, std::string, std::string>, uint64_t> index_;
  std::vector<uint64_t> by_tag_;  // tag -> id, 0 = not made yet
};

}  // namespace usdt::report
