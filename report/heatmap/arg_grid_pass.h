// heatmap --probe P --arg N's consumer of the event pass: the argument's
// value of each selected event at its time (report/stats/time_grid.h).
// Integers keep their sign as the site's descriptor says; floating-point
// values go in by their floor; events without the argument, or with a
// string there, are counted, never drawn as 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "report/input/event_pass.h"
#include "report/input/query.h"
#include "report/stats/time_grid.h"

namespace usdt::report {

class ArgGridPass : public PassConsumer {
 public:
  ArgGridPass(const ProbeCatalog& catalog, ArgRef arg, uint64_t timeline_start)
      : catalog_(&catalog), arg_(std::move(arg)), timeline_start_(timeline_start) {}

  void on_event(uint32_t site, uint32_t, uint32_t, const format::Event& e, uint64_t time) {
    const SiteInfo* info = &catalog_->site(site);
    const int i = arg_.at(info);
    if (i < 0 || !e.has_arg(i)) {
      ++missing;
      return;
    }
    if (e.is_string(i)) {
      ++strings;
      return;
    }
    const uint64_t at = time >= timeline_start_ ? time - timeline_start_ : 0;
    const ArgType type = arg_type_at(info, i);
    if (type == ArgType::signed_int) {
      grid.add(at, static_cast<int64_t>(e.args[i]));
    } else if (type == ArgType::float32 || type == ArgType::float64) {
      const double d = std::floor(arg_as_double(e.args[i], type));
      if (std::isnan(d)) {
        ++missing;
      } else {
        grid.add(at, d >= 9.2e18    ? std::numeric_limits<int64_t>::max()
                     : d <= -9.2e18 ? std::numeric_limits<int64_t>::min()
                                    : static_cast<int64_t>(d));
      }
    } else {
      grid.add_unsigned(at, e.args[i]);
    }
  }
  bool merge(const ArgGridPass& later) {
    grid.merge(later.grid);
    missing += later.missing;
    strings += later.strings;
    return true;
  }

  TimeGrid grid;
  uint64_t missing = 0;  // events without the argument
  uint64_t strings = 0;  // events with a string there

 private:
  const ProbeCatalog* catalog_;
  ArgRef arg_;
  uint64_t timeline_start_;
};

}  // namespace usdt::report
