#include "report/top/top_pass.h"

#include <algorithm>

namespace usdt::report {

void SecondCounts::reset(uint64_t s, size_t probes, size_t pair_count) {
  second = s;
  events.assign(probes, 0);
  events_total = 0;
  lost = 0;
  pairs.clear();
  pairs.resize(pair_count);
}

TopPass::TopPass(const ProbeCatalog& catalog, uint64_t start_ns, std::vector<LatencyConfig> pairs)
    : catalog_(&catalog),
      start_ns_(start_ns),
      events_(catalog.probes().size(), 0),
      lost_per_probe_(catalog.probes().size(), 0) {
  for (LatencyConfig& c : pairs) pairs_.push_back(std::make_unique<PairWatch>(std::move(c)));
}

SecondCounts* TopPass::at(uint64_t s) {
  if (current_.second == s) return &current_;
  if (previous_.second == s) return &previous_;
  if (current_.second != UINT64_MAX && s < current_.second) return nullptr;  // older than kept
  // A new latest second: the current one becomes the previous when it is
  // the second just before; otherwise the one before is known empty.
  if (current_.second != UINT64_MAX && current_.second + 1 == s) {
    std::swap(previous_, current_);
  } else {
    previous_.reset(s == 0 ? UINT64_MAX : s - 1, catalog_->probes().size(), pairs_.size());
  }
  current_.reset(s, catalog_->probes().size(), pairs_.size());
  return &current_;
}

const SecondCounts* TopPass::second(uint64_t s) const {
  if (current_.second == s) return &current_;
  if (previous_.second == s) return &previous_;
  return nullptr;
}

void TopPass::on_event(uint32_t site, uint32_t, uint32_t domain, const format::Event& e,
                       uint64_t time) {
  const uint32_t probe = catalog_->site(site).probe;
  ++events_[probe];
  ++events_total_;
  last_time_ = std::max(last_time_, time);
  SecondCounts* s = at(second_of(time));
  if (s != nullptr) {
    ++s->events[probe];
    ++s->events_total;
  }
  for (size_t i = 0; i < pairs_.size(); ++i) {
    PairWatch& w = *pairs_[i];
    LatencyPair pair;
    if (w.analyzer.on_event(site, domain, e, time, &pair) != LatencyAnalyzer::Outcome::paired) {
      continue;
    }
    w.total.add(pair.duration);
    if (s == nullptr) continue;
    if (!s->pairs[i]) s->pairs[i] = std::make_unique<DurationStats>();
    s->pairs[i]->add(pair.duration);
  }
}

// A loss counts in the second of its time_begin_ns (the CPU's last record
// before it, when it began), the time it comes in order by: one that comes
// after that second has gone from the window counts in the totals only.
void TopPass::on_lost(uint32_t, uint32_t site, const format::LostEvent& lost, uint64_t time) {
  lost_total_ += lost.count;
  if (site != ProbeCatalog::kUnknownSite) lost_per_probe_[catalog_->site(site).probe] += lost.count;
  if (SecondCounts* s = at(second_of(time)); s != nullptr) s->lost += lost.count;
}

}  // namespace usdt::report
