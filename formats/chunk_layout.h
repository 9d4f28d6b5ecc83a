// What the chunk payload's encoder (formats/chunk_builder.h) and decoder
// (formats/chunk_decoder.h) agree on (formats/FORMAT.md, "Chunk block"): the
// section kinds, the order of the events section's columns and the limits of
// the rows.
#pragma once

#include <cstdint>

#include "formats/trace_types.h"

namespace usdt::format {

enum class SectionKind : uint8_t { events = 1, process = 2, lost = 3, strings = 4, stacks = 5 };

// The columns of the events section, in the order they are stored.
enum EventColumn { kTimeColumn = 0, kSiteColumn, kThreadColumn, kCpuColumn, kShapeColumn, kArg0Column };
constexpr int kEventColumns = kArg0Column + kMaxArgs;

// Bytes of a process event's comm.
constexpr uint64_t kMaxComm = 4096;

}  // namespace usdt::format
