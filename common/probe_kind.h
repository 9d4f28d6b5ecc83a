// The kinds of probe, in one vocabulary for both tools: the values are the
// ones the trace format stores in its probe table (formats/FORMAT.md), so a
// value never changes meaning.
#pragma once

#include <cstdint>

namespace usdt {

enum class ProbeKind : uint8_t {
  usdt = 1,        // a USDT probe site (.note.stapsdt)
  uprobe = 2,      // a function's entry
  uretprobe = 3,   // a function's return
  tracepoint = 4,  // a kernel tracepoint
};

}  // namespace usdt
