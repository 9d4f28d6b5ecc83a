#include "report/input/event_pass.h"

#include <algorithm>

namespace usdt::report {

namespace {

// write_in_order's segments hold about this many records each (text lines
// of about 80 bytes: some MB of text per segment).
constexpr uint64_t kOrderedSegmentRecords = uint64_t{1} << 16;

}  // namespace

EventPass::EventPass(TraceInput& input, EventFilter filter, unsigned threads)
    : input_(&input), filter_(std::move(filter)), domains_(file_domains(input)), threads_(threads) {}

Result<EventPass> EventPass::open(TraceInput& input, const FilterOptions& filter, Options options) {
  Result<EventFilter> compiled = EventFilter::create(input.catalog(), filter, input.timeline_start());
  if (!compiled) return compiled.error();
  compiled->set_reads_arguments(options.reads_arguments);
  for (uint32_t f = 0; f < input.files().size(); ++f) {
    input.set_read_filter(f, file_read_filter(*compiled, input, f));
  }
  return EventPass(input, std::move(*compiled), report_threads(options.jobs));
}

void EventPass::read_only_sites(const std::vector<uint8_t>& wanted, bool arguments) {
  filter_.set_reads_arguments(arguments);
  for (uint32_t f = 0; f < input_->files().size(); ++f) {
    input_->set_read_filter(f, file_read_filter(filter_, *input_, f, &wanted));
  }
}

std::vector<uint64_t> EventPass::ordered_bounds() const {
  if (threads_ < 2) return {};
  const uint64_t parts = std::clamp<uint64_t>(input_->indexed_records().all / kOrderedSegmentRecords,
                                              uint64_t{threads_} * 4, 1 << 16);
  return input_->segment_bounds(static_cast<unsigned>(parts));
}

const std::vector<FileCompleteness>& EventPass::completeness() const {
  if (!completeness_) completeness_ = damaged_files(*input_);
  return *completeness_;
}

std::vector<std::string> EventPass::read_problems() const {
  std::vector<std::string> out;
  const std::vector<FileCompleteness>& damaged = completeness();
  for (uint32_t i = 0; i < input_->files().size(); ++i) {
    const TraceFileInfo& f = input_->files()[i];
    const format::ReadDiagnostics& d = f.diagnostics;
    std::string incomplete;
    for (const FileCompleteness& c : damaged) {
      if (c.file == i) incomplete = incomplete_text(*input_, c);
    }
    if (d.truncated) {
      std::string where;
      for (const format::ReadProblem& p : d.problems) where = " at offset " + std::to_string(p.offset);
      out.push_back("'" + f.path + "' is truncated" + where + ": " + incomplete);
    }
    if (d.chunks_bad > 0 || !d.skipped_at.empty()) {
      std::string first;
      for (const format::ReadProblem& p : d.problems) {
        if (first.empty() && !p.over_budget) {
          first = " (first at offset " + std::to_string(p.offset) + ": " + p.message + ")";
        }
      }
      std::string what = d.chunks_bad > 0 ? "skipped " + std::to_string(d.chunks_bad) +
                                                " corrupted chunk" + (d.chunks_bad == 1 ? "" : "s")
                                          : "skipped damaged bytes";
      out.push_back("'" + f.path + "': " + what + first + (d.truncated ? "" : "; " + incomplete));
    }
    // What the reader left out for its memory budget: the first, and how
    // many more.
    const format::ReadProblem* first_over = nullptr;
    size_t over = 0;
    for (const format::ReadProblem& p : d.problems) {
      if (!p.over_budget) continue;
      if (first_over == nullptr) first_over = &p;
      ++over;
    }
    if (first_over != nullptr) {
      out.push_back(first_over->message +
                    (over > 1 ? " (and " + std::to_string(over - 1) + " more left out)" : "") +
                    "; --max-memory SIZE raises the budget");
    }
    if (d.records_skipped > 0) {
      out.push_back("'" + f.path + "': skipped " + std::to_string(d.records_skipped) +
                    " record(s) of unknown kind (written by a newer recorder?)");
    }
  }
  return out;
}

}  // namespace usdt::report
