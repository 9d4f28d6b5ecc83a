#include "report/stack_text.h"

#include <cstdio>

namespace usdt::report {

void append_stack_text(std::string& out, StackSymbolizer& symbols, const MappingSet* mappings,
                       const uint64_t* stack, size_t depth, bool truncated, const char* indent) {
  char address[24];
  for (size_t i = 0; i < depth; ++i) {
    const FrameSymbol& f = symbols.resolve_frame(mappings, stack, i);
    std::snprintf(address, sizeof address, "%16llx", static_cast<unsigned long long>(stack[i]));
    out += indent;
    out += address;
    out += ' ';
    out += f.label();
    out += " (";
    out += f.object;
    out += ")\n";
  }
  if (truncated) {
    out += indent;
    out += "(truncated)\n";
  }
}

void write_stack_json(JsonWriter& w, StackSymbolizer& symbols, const MappingSet* mappings,
                      const uint64_t* stack, size_t depth, bool truncated) {
  w.key("stack").begin_array();
  for (size_t i = 0; i < depth; ++i) {
    const FrameSymbol& f = symbols.resolve_frame(mappings, stack, i);
    w.begin_object().key("ip").uint(stack[i]).key("function").string(f.function);
    if (f.has_symbol) w.key("offset").uint(f.symbol_offset);
    w.key("object").string(f.object).end_object();
  }
  w.end_array();
  if (truncated) w.key("stack_truncated").boolean(true);
}

std::string stack_labels_joined(StackSymbolizer& symbols, const MappingSet* mappings,
                                const uint64_t* stack, size_t depth, bool truncated) {
  std::string out;
  for (size_t i = 0; i < depth; ++i) {
    if (i) out += ';';
    out += symbols.resolve_frame(mappings, stack, i).label();
  }
  if (truncated) out += depth > 0 ? ";[truncated]" : "[truncated]";
  return out;
}

}  // namespace usdt::report
