// hist's consumer of the event pass (report/input/event_pass.h): each
// selected event's argument into the histograms.
#pragma once

#include <utility>

#include "report/hist/arg_histogram.h"
#include "report/input/event_pass.h"

namespace usdt::report {

class HistPass : public PassConsumer {
 public:
  explicit HistPass(ArgHistogramConfig config) : analyzer(std::move(config)) {}

  void on_event(uint32_t site, uint32_t, uint32_t domain, const format::Event& e, uint64_t) {
    analyzer.on_event(site, domain, e);
  }
  // Once a group limit is reached the parts cannot be merged exactly.
  bool over_limit() const { return analyzer.events_outside_groups() > 0; }
  bool merge(const HistPass& later) { return analyzer.merge(later.analyzer); }

  ArgHistogramAnalyzer analyzer;
};

}  // namespace usdt::report
