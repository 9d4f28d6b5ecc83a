#include "report/stats/summary_stats.h"

#include <algorithm>

namespace usdt::report {

SummaryStats::SummaryStats(const ProbeCatalog& catalog, size_t file_count)
    : per_probe_(catalog.probes().size(), 0),
      events_per_file_(file_count, 0),
      lost_per_probe_(catalog.probes().size(), 0) {
  probe_of_site_.reserve(catalog.site_count());
  for (uint32_t s = 0; s < catalog.site_count(); ++s) probe_of_site_.push_back(catalog.site(s).probe);
}

void SummaryStats::on_lost(uint32_t global_site, const format::LostEvent& lost) {
  lost_ += lost.count;
  lost_per_cpu_[lost.cpu] += lost.count;
  if (global_site == ProbeCatalog::kUnknownSite) {
    lost_unknown_probe_ += lost.count;
  } else {
    lost_per_probe_[probe_of_site_[global_site]] += lost.count;
  }
}

void SummaryStats::merge(const SummaryStats& later) {
  if (later.events_ > 0) {
    if (events_ == 0) first_time_ = later.first_time_;
    last_time_ = later.last_time_;
  }
  events_ += later.events_;
  unknown_site_events_ += later.unknown_site_events_;
  for (size_t i = 0; i < per_probe_.size(); ++i) per_probe_[i] += later.per_probe_[i];
  for (size_t i = 0; i < events_per_file_.size(); ++i)
    events_per_file_[i] += later.events_per_file_[i];
  later.per_process_.for_each([&](uint64_t k, uint64_t count) { per_process_[k] += count; });
  last_process_ = nullptr;  // the map may have grown
  lost_ += later.lost_;
  lost_unknown_probe_ += later.lost_unknown_probe_;
  for (size_t i = 0; i < lost_per_probe_.size(); ++i)
    lost_per_probe_[i] += later.lost_per_probe_[i];
  for (const auto& [cpu, count] : later.lost_per_cpu_) lost_per_cpu_[cpu] += count;
}

std::vector<ProcessCount> SummaryStats::processes() const {
  std::vector<ProcessCount> out;
  per_process_.for_each([&](uint64_t k, uint64_t count) {
    ProcessCount p;
    p.domain = static_cast<uint32_t>(k >> 32);
    p.pid = static_cast<uint32_t>(k);
    p.name = names_.process_name(p.domain, p.pid);
    p.events = count;
    if (const NamespaceIds* ns = names_.process_namespace(p.domain, p.pid); ns != nullptr) {
      p.in_namespace = true;
      p.ns = *ns;
    }
    out.push_back(p);
  });
  std::sort(out.begin(), out.end(), [](const ProcessCount& a, const ProcessCount& b) {
    return a.domain != b.domain ? a.domain < b.domain : a.pid < b.pid;
  });
  return out;
}

}  // namespace usdt::report
