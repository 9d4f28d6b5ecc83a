// The drain loop's batches into a TraceWriter, in their order: the added
// sites first (their events may follow), process records, events, lost
// records. Shared by the sinks (trace_sink.h).
#pragma once

#include <cstdint>

#include "common/result.h"
#include "formats/trace_writer.h"
#include "record/session/batch_queue.h"

namespace usdt::record {

// The times of the records a file holds: its span is drawn around them.
struct RecordSpan {
  uint64_t min = UINT64_MAX;
  uint64_t max = 0;
  void add(uint64_t t) {
    if (t < min) min = t;
    if (t > max) max = t;
  }
  bool empty() const { return min > max; }
};

// Appends the batch; span (when given) takes the time of every record.
Status append_batch(format::TraceWriter& writer, const EventBatch& batch, RecordSpan* span);

// The earliest time of a batch's records, UINT64_MAX when it has none.
uint64_t earliest_record(const EventBatch& batch);

}  // namespace usdt::record
