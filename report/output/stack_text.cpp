#include "report/output/stack_text.h"

#include <cstdio>

namespace usdt::report {

void append_stack_text(std::string& out, StackSymbolizer& symbols, const MappingSet* mappings,
                       const uint64_t* stack, size_t depth, bool truncated, const char* indent) {
  char address[24];
  for (size_t i = 0; i < depth; ++i) {
    const FrameSymbol& f = symbols.resolve_frame(mappings, stack, i);
    if (f.text_cache.empty()) {
      std::snprintf(address, sizeof address, "%16llx", static_cast<unsigned long long>(stack[i]));
      f.text_cache = address;
      f.text_cache += ' ';
      f.text_cache += f.label();
      f.text_cache += " (";
      f.text_cache += f.object;
      f.text_cache += ")\n";
    }
    out += indent;
    out += f.text_cache;
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
    if (f.json_cache.empty()) {
      JsonWriter frame(f.json_cache);
      frame.begin_object().key("ip").uint(stack[i]).key("function").string(f.function);
      if (f.has_symbol) frame.key("offset").uint(f.symbol_offset);
      frame.key("object").string(f.object).end_object();
    }
    w.number_text(f.json_cache);  // a JSON value written as is
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
