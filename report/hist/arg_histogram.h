// The distribution of one probe argument for `usdt-report hist`: count,
// missing (events whose argument could not be recorded: never counted as 0),
// exact min/mean/max, and a log2 histogram with negative buckets mirrored
// ([-3, -1) holds -2 and -3) or linear buckets. Floating-point arguments are
// exact in min/mean/max and bucketed by their floor.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "common/flat_map.h"
#include "report/stats/group_key.h"
#include "report/stats/histogram_bucket.h"
#include "report/stats/linear_histogram.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"

namespace usdt::report {

// log2 buckets over signed 128-bit values (every int64 and uint64 fits).
class SignedLog2Histogram {
 public:
  void add(__int128 v);
  void merge(const SignedLog2Histogram& other);
  std::vector<HistogramBucket> buckets() const;  // every bucket, negative first

 private:
  std::array<uint64_t, 65> negative_{};  // [b]: -v in [2^(b-1), 2^b), b >= 1
  std::array<uint64_t, 66> positive_{};  // [0]: 0; [b]: v in [2^(b-1), 2^b)
};

class ArgStats {
 public:
  explicit ArgStats(std::optional<LinearSpec> linear) {
    if (linear) linear_ = std::make_unique<LinearHistogram>(*linear);
  }
  void add(uint64_t raw, ArgType type);
  void add_missing() { ++missing_; }
  // Adds later's values (of the events after these), as if each had been
  // added here. False, having changed nothing, when both hold floating-point
  // values: their sum would be rounded in another order than one pass's.
  bool merge(const ArgStats& later);

  uint64_t count() const { return int_count_ + float_count_; }
  uint64_t missing() const { return missing_; }
  // Exact, as JSON numbers; "null" when count() == 0.
  std::string min_text() const;
  std::string max_text() const;
  std::string mean_text() const;
  std::vector<HistogramBucket> buckets() const;

 private:
  uint64_t int_count_ = 0;
  uint64_t float_count_ = 0;
  uint64_t missing_ = 0;
  __int128 int_min_ = 0;
  __int128 int_max_ = 0;
  __int128 int_sum_ = 0;
  double float_min_ = 0;
  double float_max_ = 0;
  double float_sum_ = 0;
  SignedLog2Histogram log2_;
  std::unique_ptr<LinearHistogram> linear_;
};

struct ArgGroup {
  GroupKey key;  // pid, tid or another argument's value
  ArgStats stats;
};

struct ArgHistogramConfig {
  std::vector<uint8_t> selected;  // per global site
  std::vector<const SiteInfo*> sites;
  ArgRef arg;  // argN, or a name looked up per site
  std::optional<KeySpec> by;  // pid, tid or argN (also a string argument)
  std::vector<std::string> hosts;  // by key domain: its host name (--by host)
  std::optional<LinearSpec> linear;
  size_t max_groups = 1000;
};

class ArgHistogramAnalyzer {
 public:
  explicit ArgHistogramAnalyzer(ArgHistogramConfig config);

  void on_event(uint32_t global_site, uint32_t domain, const format::Event& e);
  // Takes later, the analyzer of the events after these (a parallel
  // report's next segment). False when the result could differ from one
  // pass: once max_groups is reached (which groups are kept depends on the
  // order of all events), or floating-point sums of both; the caller then
  // reads the input in one pass.
  bool merge(const ArgHistogramAnalyzer& later);

  const ArgStats& overall() const { return overall_; }
  std::vector<const ArgGroup*> groups() const;  // sorted by key (group_key_less)
  uint64_t events_outside_groups() const { return outside_groups_; }

 private:
  ArgHistogramConfig config_;
  ArgStats overall_;
  std::vector<std::unique_ptr<ArgGroup>> groups_;
  GroupIndex group_index_;
  uint64_t outside_groups_ = 0;
};

}  // namespace usdt::report
