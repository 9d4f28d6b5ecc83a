#include "report/process_history.h"

#include <memory>

#include "report/commands.h"

namespace usdt::report {

std::optional<ProcessHistory> ProcessHistory::read(TraceInput& input, const EventFilter& filter) {
  const TraceInput::IndexedRecords counts = input.indexed_records();
  if (counts.in_process_chunks > counts.all / 2) return std::nullopt;
  std::unique_ptr<TraceInput> pass = input.open_segment(0, UINT64_MAX);
  if (!pass) return std::nullopt;
  for (uint32_t f = 0; f < input.files().size(); ++f) {
    format::ReadFilter rf = file_read_filter(filter, input, f);
    rf.events = false;
    rf.arguments = false;
    pass->set_read_filter(f, rf);
  }
  ProcessHistory history;
  Record r;
  while (pass->next(r)) {
    if (r.kind == format::RecordKind::process)
      history.entries_.push_back(Entry{r.file, r.time, *r.process});
  }
  return history;
}

}  // namespace usdt::report
