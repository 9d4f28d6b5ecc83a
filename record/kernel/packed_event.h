// The packed form of a format::Event in the recorder's batches
// (batch_queue.h): a header of kPackedHeaderWords words, the address of the
// event's stack when it has one, then its arguments. Six words for two
// arguments, where a format::Event takes nineteen. Written by
// EventBatch::add() and, for the usual sample, straight from the ring buffer
// by SampleDecoder::pack_usual().
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/trace_types.h"

namespace usdt::record {

//   word 0: time
//   word 1: pid | tid << 32
//   word 2: cpu | site_id << 32
//   word 3: the shape: arg_count | missing_mask << 8 | string_mask << 24 |
//           stack_depth << 40 | stack_truncated << 56
constexpr size_t kPackedHeaderWords = 4;
// The most words one event takes.
constexpr size_t kPackedMaxWords = kPackedHeaderWords + 1 + format::kMaxArgs;

inline uint64_t packed_shape(size_t arg_count, uint16_t missing, uint16_t strings,
                             uint16_t stack_depth, bool truncated) {
  return uint64_t{arg_count} | uint64_t{missing} << 8 | uint64_t{strings} << 24 |
         uint64_t{stack_depth} << 40 | uint64_t{truncated} << 56;
}

inline void pack_header(uint64_t* w, uint64_t time, uint32_t pid, uint32_t tid, uint32_t cpu,
                        uint32_t site_id, uint64_t shape) {
  w[0] = time;
  w[1] = uint64_t{pid} | uint64_t{tid} << 32;
  w[2] = uint64_t{cpu} | uint64_t{site_id} << 32;
  w[3] = shape;
}

inline uint64_t packed_time(const uint64_t* w) { return w[0]; }
inline uint32_t packed_pid(const uint64_t* w) { return static_cast<uint32_t>(w[1]); }
inline uint32_t packed_tid(const uint64_t* w) { return static_cast<uint32_t>(w[1] >> 32); }
inline uint32_t packed_site(const uint64_t* w) { return static_cast<uint32_t>(w[2] >> 32); }

}  // namespace usdt::record
