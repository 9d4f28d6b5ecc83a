#include "record/output/batch_append.h"

#include <algorithm>

namespace usdt::record {

Status append_batch(format::TraceWriter& writer, const EventBatch& batch, RecordSpan* span) {
  if (!batch.added_sites.empty()) {
    if (Status s = writer.add_sites(batch.added_sites, batch.added_since_ns); !s) return s;
  }
  for (const format::ProcessEvent& p : batch.processes) {
    if (Status s = writer.append(p); !s) return s;
    if (span != nullptr) span->add(p.time_ns);
  }
  EventBatch::Reader reader(batch);
  format::Event e;
  while (reader.next(e)) {
    if (Status s = writer.append(e); !s) return s;
    if (span != nullptr) span->add(e.time_ns);
  }
  for (const format::LostEvent& l : batch.lost) {
    if (Status s = writer.append(l); !s) return s;
    if (span != nullptr) {
      span->add(l.time_begin_ns);
      span->add(l.time_end_ns);
    }
  }
  return Status::success();
}

uint64_t earliest_record(const EventBatch& batch) {
  uint64_t earliest = UINT64_MAX;
  for (const format::ProcessEvent& p : batch.processes) earliest = std::min(earliest, p.time_ns);
  EventBatch::Reader reader(batch);
  format::Event e;
  while (reader.next(e)) earliest = std::min(earliest, e.time_ns);
  for (const format::LostEvent& l : batch.lost) earliest = std::min(earliest, l.time_begin_ns);
  return earliest;
}

}  // namespace usdt::record
