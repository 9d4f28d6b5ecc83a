#include "report/input/process_history.h"

#include <stdexcept>

#include "report/input/event_filter.h"

namespace usdt::report {

std::optional<ProcessHistory> ProcessHistory::open(const TraceInput& input,
                                                   const EventFilter& filter) {
  const TraceInput::IndexedRecords counts = input.indexed_records();
  if (counts.in_process_chunks > counts.all / 2) return std::nullopt;
  if (!input.open_segment(0, UINT64_MAX)) return std::nullopt;
  std::vector<format::ReadFilter> filters;
  for (uint32_t f = 0; f < input.files().size(); ++f) {
    format::ReadFilter rf = file_read_filter(filter, input, f);
    rf.events = false;
    rf.arguments = false;
    filters.push_back(rf);
  }
  return ProcessHistory(input, std::move(filters));
}

std::unique_ptr<TraceInput> ProcessHistory::open_pass(uint64_t from, uint64_t to) const {
  // (0 and UINT64_MAX are open_segment's open ends, which they are here too.)
  std::unique_ptr<TraceInput> pass = input_->open_segment(from, to);
  if (!pass) throw std::logic_error("the trace was read before its process history");
  for (uint32_t f = 0; f < filters_.size(); ++f) pass->set_read_filter(f, filters_[f]);
  return pass;
}

}  // namespace usdt::report
