// How the commands print a symbolized call stack (report/symbols/stack_symbolizer.h):
// the indented lines of dump's and latency's text, the "stack" array of
// JSON output, and the frame names that stacks aggregates on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "report/output/json_writer.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

// One line per frame, innermost first, as perf script prints them:
// indent, the address in hex, function+0xOFF, (object); then a line
// "(truncated)" when the walk stopped early.
void append_stack_text(std::string& out, StackSymbolizer& symbols, const MappingSet* mappings,
                       const uint64_t* stack, size_t depth, bool truncated, const char* indent);

// The members "stack":[{"ip":N,"function":"..","offset":N,"object":".."},...]
// (offset only when the frame has a symbol) and, only for a cut stack,
// "stack_truncated":true, into the object w has open.
void write_stack_json(JsonWriter& w, StackSymbolizer& symbols, const MappingSet* mappings,
                      const uint64_t* stack, size_t depth, bool truncated);

// The event's stack as above, against its process's mappings now.
inline void append_event_stack_text(std::string& out, StackSymbolizer& symbols, uint32_t file,
                                    const format::Event& e, const char* indent) {
  MappingsRef m = symbols.mappings(file, e.pid);
  append_stack_text(out, symbols, m.get(), e.stack, e.stack_depth, e.stack_truncated, indent);
}

// The frames' labels joined by ';' (csv), innermost first, ";[truncated]"
// at the end of a cut stack.
std::string stack_labels_joined(StackSymbolizer& symbols, const MappingSet* mappings,
                                const uint64_t* stack, size_t depth, bool truncated);

}  // namespace usdt::report
