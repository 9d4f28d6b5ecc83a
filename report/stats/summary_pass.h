// The summary's consumer of the event pass (report/input/event_pass.h): what
// the records of the input, or of one segment of it, add up to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "report/input/event_filter.h"
#include "report/input/event_pass.h"
#include "report/input/probe_catalog.h"
#include "report/stats/summary_stats.h"

namespace usdt::report {

// What every segment's consumer reads with.
struct SummaryContext {
  const ProbeCatalog& catalog;
  const EventFilter& filter;
  const std::vector<uint32_t>& host_of_file;  // empty without --by host
  size_t host_count = 0;
};

class SummaryPass : public PassConsumer {
 public:
  SummaryPass(const SummaryContext& c, size_t files, const Segment& segment)
      : stats(c.catalog, files),
        lost_records_per_file(files, 0),
        host_probe_events(c.host_of_file.empty() ? 0 : c.host_count * c.catalog.probes().size(), 0),
        c_(&c),
        keeps_process_records_(segment.later()) {}

  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) {
    stats.on_event(site, file, domain, e, time);
    if (!c_->host_of_file.empty()) {
      ++host_probe_events[c_->host_of_file[file] * c_->catalog.probes().size() + c_->catalog.site(site).probe];
    }
  }
  void on_unlisted_event(uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) {
    stats.on_event(ProbeCatalog::kUnknownSite, file, domain, e, time);
  }
  // A later segment keeps its process records for the merge rather than
  // applying them: a fork takes its parent's name, which an earlier segment
  // may give.
  void on_process(uint32_t, uint32_t domain, const format::ProcessEvent& p) {
    if (keeps_process_records_) {
      process_records.emplace_back(domain, p);
    } else {
      stats.names().on_process(domain, p);
    }
  }
  void on_lost(uint32_t file, uint32_t site, const format::LostEvent& lost, uint64_t time) {
    lost_records_per_file[file] += lost.count;
    const bool selected = site == ProbeCatalog::kUnknownSite || c_->filter.site_selected(site);
    if (selected && c_->filter.in_time_window(time)) stats.on_lost(site, lost);
  }
  static constexpr bool kWatchesTime = true;
  void on_record_time(uint64_t time) {
    any_record = true;
    last_record_time = std::max(last_record_time, time);
  }

  // Adds later, the pass of the records that follow these.
  bool merge(SummaryPass& later) {
    stats.merge(later.stats);
    for (size_t f = 0; f < lost_records_per_file.size(); ++f)
      lost_records_per_file[f] += later.lost_records_per_file[f];
    for (size_t i = 0; i < host_probe_events.size(); ++i) host_probe_events[i] += later.host_probe_events[i];
    if (later.any_record) on_record_time(later.last_record_time);
    for (const auto& [domain, p] : later.process_records) stats.names().on_process(domain, p);
    return true;
  }

  SummaryStats stats;
  std::vector<uint64_t> lost_records_per_file;
  std::vector<uint64_t> host_probe_events;  // [host * probes + probe]
  uint64_t last_record_time = 0;
  bool any_record = false;
  std::vector<std::pair<uint32_t, format::ProcessEvent>> process_records;  // a later segment's

 private:
  const SummaryContext* c_;
  bool keeps_process_records_;
};

}  // namespace usdt::report
