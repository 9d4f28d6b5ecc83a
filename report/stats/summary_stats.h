// What `usdt-report summary` counts: events per probe and per process, lost
// events per CPU and per probe, the first and last event times. Counts are
// of the records actually read, never copied from the file's own summary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "common/flat_map.h"
#include "report/input/probe_catalog.h"
#include "report/input/process_names.h"

namespace usdt::report {

struct ProcessCount {
  uint32_t domain = 0;  // file index when hosts differ, else 0
  uint32_t pid = 0;
  uint32_t name = ProcessNames::kNoName;
  uint64_t events = 0;
  // In another PID namespace than the recorder's (format 1.8): its numbers
  // there (ns_pid 0: unknown).
  bool in_namespace = false;
  NamespaceIds ns;
};

class SummaryStats {
 public:
  SummaryStats(const ProbeCatalog& catalog, size_t file_count);

  // global_site may be ProbeCatalog::kUnknownSite (counted apart).
  void on_event(uint32_t global_site, uint32_t file, uint32_t domain, const format::Event& e,
                uint64_t time) {
    ++events_;
    ++events_per_file_[file];
    if (events_ == 1) first_time_ = time;
    last_time_ = time;
    if (global_site == ProbeCatalog::kUnknownSite) {
      ++unknown_site_events_;
    } else {
      ++per_probe_[probe_of_site_[global_site]];
    }
    uint64_t k = ProcessNames::key(domain, e.pid);
    if (last_process_ == nullptr || k != last_process_key_) {
      last_process_ = &per_process_[k];
      last_process_key_ = k;
    }
    ++*last_process_;
  }

  void on_lost(uint32_t global_site, const format::LostEvent& lost);
  // Adds the counts of later, made of the records that follow these (a
  // parallel report's next segment). Names are not merged: the caller feeds
  // the process records to names() in order.
  void merge(const SummaryStats& later);
  ProcessNames& names() { return names_; }
  const ProcessNames& names() const { return names_; }

  uint64_t events() const { return events_; }
  uint64_t events_of_file(uint32_t file) const { return events_per_file_[file]; }
  uint64_t unknown_site_events() const { return unknown_site_events_; }
  uint64_t first_time() const { return first_time_; }
  uint64_t last_time() const { return last_time_; }
  const std::vector<uint64_t>& events_per_probe() const { return per_probe_; }
  const std::vector<uint64_t>& lost_per_probe() const { return lost_per_probe_; }
  uint64_t lost() const { return lost_; }
  uint64_t lost_unknown_probe() const { return lost_unknown_probe_; }
  const std::map<uint32_t, uint64_t>& lost_per_cpu() const { return lost_per_cpu_; }

  // Processes sorted by (domain, pid), with their current names.
  std::vector<ProcessCount> processes() const;

 private:
  std::vector<uint32_t> probe_of_site_;
  std::vector<uint64_t> per_probe_;
  std::vector<uint64_t> events_per_file_;
  FlatMap<uint64_t> per_process_;
  uint64_t* last_process_ = nullptr;
  uint64_t last_process_key_ = 0;
  ProcessNames names_;
  uint64_t events_ = 0;
  uint64_t unknown_site_events_ = 0;
  uint64_t first_time_ = 0;
  uint64_t last_time_ = 0;
  uint64_t lost_ = 0;
  uint64_t lost_unknown_probe_ = 0;
  std::vector<uint64_t> lost_per_probe_;
  std::map<uint32_t, uint64_t> lost_per_cpu_;
};

}  // namespace usdt::report
