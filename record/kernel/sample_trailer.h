// The sample_id_all trailer every side-band record of the recording's
// events ends with (perf_event_open(2), sample_id): pid, tid, time, cpu, res,
// and with PERF_SAMPLE_IDENTIFIER the event's id.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/byte_cursor.h"

namespace usdt::record {

struct Trailer {
  uint32_t pid = 0, tid = 0, cpu = 0;
  uint64_t time = 0, id = 0;
};

// The trailer of the record [p, p + size) that ends with trailer_bytes of
// it (24, or 32 with an identifier); false when the record is shorter.
inline bool read_trailer(const uint8_t* p, size_t size, size_t trailer_bytes, Trailer& t) {
  if (size < trailer_bytes) return false;
  format::ByteCursor c(p + size - trailer_bytes, trailer_bytes);
  t.pid = c.u32();
  t.tid = c.u32();
  t.time = c.u64();
  t.cpu = c.u32();
  c.u32();  // res
  if (trailer_bytes != 24) t.id = c.u64();
  return c.ok();
}

}  // namespace usdt::record
