// A TraceInput fed from vectors (a test helper, not part of usdt-report),
// for tests of the commands and analyses without a trace file. Records must
// be added in time order per file; the files are merged by time like
// TraceSet does.
#pragma once

#include <memory>
#include <variant>
#include <vector>

#include "report/input/trace_input.h"

namespace usdt::report {

class MemoryTrace : public TraceInput {
 public:
  // Adds a file; returns its index.
  uint32_t add_file(const format::TraceMetadata& metadata, const std::vector<format::ProbeSite>& sites,
                    std::string path = "memory.trace") {
    TraceFileInfo info;
    info.path = std::move(path);
    info.metadata = metadata;
    files_.push_back(std::move(info));
    catalog_.add_file(sites);
    records_.emplace_back();
    positions_.push_back(0);
    compute_timeline();
    return static_cast<uint32_t>(files_.size() - 1);
  }
  void add(uint32_t file, const format::Event& e) { records_[file].push_back(e); }
  void add(uint32_t file, const format::ProcessEvent& p) { records_[file].push_back(p); }
  void add(uint32_t file, const format::LostEvent& l) { records_[file].push_back(l); }
  // The object blocks of a file (format 1.3), as TraceReader::objects() gives them.
  void add_object(uint32_t file, const format::ObjectTable& o) {
    auto tables = std::make_shared<std::vector<format::ObjectTable>>(files_[file].objects());
    tables->push_back(o);
    files_[file].object_tables = std::move(tables);
  }
  void set_summary(uint32_t file, const format::TraceSummary& s) { files_[file].summary = s; }
  void set_diagnostics(uint32_t file, const format::ReadDiagnostics& d) { files_[file].diagnostics = d; }

  bool next_record(Record& r) override {
    size_t best = SIZE_MAX;
    uint64_t best_time = 0;
    for (size_t f = 0; f < records_.size(); ++f) {
      if (positions_[f] >= records_[f].size()) continue;
      uint64_t t = time_of(records_[f][positions_[f]]) + static_cast<uint64_t>(files_[f].shift_ns);
      if (best == SIZE_MAX || t < best_time) {
        best = f;
        best_time = t;
      }
    }
    if (best == SIZE_MAX) return false;
    const Item& item = records_[best][positions_[best]++];
    r = Record{};
    r.file = static_cast<uint32_t>(best);
    r.time = best_time;
    if (const auto* e = std::get_if<format::Event>(&item)) {
      r.kind = format::RecordKind::event;
      r.event = e;
    } else if (const auto* p = std::get_if<format::ProcessEvent>(&item)) {
      r.kind = format::RecordKind::process;
      r.process = p;
    } else {
      r.kind = format::RecordKind::lost;
      r.lost = &std::get<format::LostEvent>(item);
    }
    return true;
  }

 private:
  using Item = std::variant<format::Event, format::ProcessEvent, format::LostEvent>;
  static uint64_t time_of(const Item& item) {
    if (const auto* e = std::get_if<format::Event>(&item)) return e->time_ns;
    if (const auto* p = std::get_if<format::ProcessEvent>(&item)) return p->time_ns;
    return std::get<format::LostEvent>(item).time_begin_ns;
  }
  std::vector<std::vector<Item>> records_;
  std::vector<size_t> positions_;
};

}  // namespace usdt::report
