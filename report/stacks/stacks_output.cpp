// stacks' output: folded lines, JSON and text, hottest first.
#include "report/stacks/stacks_output.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "report/output/json_writer.h"

namespace usdt::report {

namespace {

// The distinct stacks, most events first (ties in the map's fixed order).
std::vector<const NamedStack*> hottest_first(const std::map<std::string, NamedStack>& merged) {
  std::vector<const NamedStack*> order;
  for (const auto& [unused, n] : merged) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [](const NamedStack* a, const NamedStack* b) { return a->count > b->count; });

  return order;
}

}  // namespace

std::string stacks_folded(const StacksPass& whole) {
  std::string out;
  for (const FoldedStack& f : folded_stacks(whole)) {
    for (size_t i = 0; i < f.frames.size(); ++i) {
      if (i > 0) out += ';';
      out += f.frames[i];
    }
    out += ' ';
    out += std::to_string(f.count);
    out += '\n';
  }
  return out;
}

std::string stacks_json(const StacksPass& whole) {
  const std::vector<const NamedStack*> order = hottest_first(whole.merged);
  const uint64_t with_stack = whole.with_stack, without_stack = whole.without_stack;
  std::string out;
  JsonWriter w(out);
  w.begin_object().key("events").uint(with_stack).key("events_without_stack").uint(without_stack);
  w.key("stacks").begin_array();
  for (const NamedStack* n : order) {
    w.begin_object().key("count").uint(n->count).key("probe").string(n->probe);
    w.key("frames").begin_array();
    for (const NamedFrame& f : n->frames) {
      w.begin_object()
          .key("function")
          .string(f.function)
          .key("object")
          .string(f.object)
          .end_object();
    }
    w.end_array();
    if (n->truncated) w.key("truncated").boolean(true);
    w.end_object();
  }
  w.end_array().end_object();
  out += '\n';
  return out;
}

std::string stacks_text(const StacksPass& whole) {
  const std::vector<const NamedStack*> order = hottest_first(whole.merged);
  const uint64_t with_stack = whole.with_stack, without_stack = whole.without_stack;
  std::string out;
  out += std::to_string(with_stack) + " events with a call stack, " +
         std::to_string(order.size()) + " distinct stacks";
  if (without_stack > 0)
    out += " (" + std::to_string(without_stack) + " selected events without one)";
  out += "\n";
  char head[64];
  for (const NamedStack* n : order) {
    std::snprintf(head, sizeof head, "\n%10llu %6.2f%%  ",
                  static_cast<unsigned long long>(n->count),
                  100.0 * static_cast<double>(n->count) / static_cast<double>(with_stack));
    out += head;
    out += n->probe;
    out += '\n';
    for (const NamedFrame& f : n->frames)
      out += "        " + f.function + " (" + f.object + ")\n";
    if (n->truncated) out += "        (truncated)\n";
  }
  return out;
}

}  // namespace usdt::report
