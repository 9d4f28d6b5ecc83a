// The stackFrames dictionary of a Chrome export (Trace Event Format): every
// distinct call stack of the exported events becomes a path in one tree of
// frames, root = the outermost frame, and an event names its innermost frame
// with "sf" (an X slice the stack of its end with "esf"). Nodes are keyed by
// (parent, function, object), so stacks share their common outer frames. A
// frame's name is its function (without offset: one node per function of a
// path, as a flame chart wants it), its category the object's path. A stack
// the recorder cut short starts from a "[truncated]" root. Ids are numbered
// in the order stacks are first asked for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "report/output/json_writer.h"
#include "report/symbols/stack_store.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

// A call stack as the names of its frames: what its path of nodes is made
// of, kept apart from the symbolizer that named it (a parallel export's
// segments name their stacks, the writer numbers them).
struct ChromeStack {
  bool truncated = false;
  std::vector<std::pair<std::string, std::string>> frames;  // (function, object), outermost first
};

ChromeStack name_stack(StackSymbolizer& symbols, const StackStore::Stack& stack);

class ChromeStackFrames {
 public:
  // The node id of the stack's innermost frame (>= 1), its path made if new.
  uint64_t id_of(const ChromeStack& stack);

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

  std::vector<Node> nodes_;  // id i + 1
  std::map<std::tuple<uint64_t, std::string, std::string>, uint64_t> index_;
};

}  // namespace usdt::report
