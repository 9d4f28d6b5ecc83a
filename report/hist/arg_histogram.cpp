#include "report/hist/arg_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "report/output/json_text.h"

namespace usdt::report {

void SignedLog2Histogram::add(__int128 v) {
  if (v == 0) {
    ++positive_[0];
  } else if (v > 0) {
    unsigned __int128 u = static_cast<unsigned __int128>(v);
    size_t b = 0;
    while (u != 0) {
      u >>= 1;
      ++b;
    }
    ++positive_[std::min<size_t>(b, 65)];
  } else {
    unsigned __int128 u = static_cast<unsigned __int128>(-v);
    size_t b = 0;
    while (u != 0) {
      u >>= 1;
      ++b;
    }
    ++negative_[std::min<size_t>(b, 64)];
  }
}

std::vector<HistogramBucket> SignedLog2Histogram::buckets() const {
  std::vector<HistogramBucket> out;
  for (size_t b = 64; b >= 1; --b) {
    HistogramBucket bucket;
    // -v in [2^(b-1), 2^b)  <=>  v in [-(2^b - 1), -2^(b-1) + 1)
    bucket.low = -((static_cast<__int128>(1) << b) - 1);
    bucket.high = -(static_cast<__int128>(1) << (b - 1)) + 1;
    bucket.count = negative_[b];
    out.push_back(bucket);
  }
  for (size_t b = 0; b < positive_.size(); ++b) {
    HistogramBucket bucket;
    bucket.low = b == 0 ? 0 : static_cast<__int128>(1) << (b - 1);
    bucket.high = b == 0 ? 1 : static_cast<__int128>(1) << b;
    bucket.count = positive_[b];
    out.push_back(bucket);
  }
  return out;
}

void ArgStats::add(uint64_t raw, ArgType type) {
  __int128 bucket_value = 0;
  if (type == ArgType::float32 || type == ArgType::float64) {
    double d = arg_as_double(raw, type);
    if (std::isnan(d)) {
      // NaN has no place on the number line: it is a value we cannot bucket.
      ++missing_;
      return;
    }
    if (float_count_ == 0 || d < float_min_) float_min_ = d;
    if (float_count_ == 0 || d > float_max_) float_max_ = d;
    float_sum_ += d;
    ++float_count_;
    double f = std::floor(d);
    f = std::clamp(f, -9.2e18, 1.8e19);
    bucket_value = static_cast<__int128>(f);
  } else {
    __int128 v = type == ArgType::signed_int ? static_cast<__int128>(static_cast<int64_t>(raw))
                                             : static_cast<__int128>(raw);
    if (int_count_ == 0 || v < int_min_) int_min_ = v;
    if (int_count_ == 0 || v > int_max_) int_max_ = v;
    int_sum_ += v;
    ++int_count_;
    bucket_value = v;
  }
  if (linear_) {
    linear_->add(bucket_value);
  } else {
    log2_.add(bucket_value);
  }
}

std::string ArgStats::min_text() const {
  if (count() == 0) return "null";
  if (float_count_ == 0) return int128_to_string(int_min_);
  double m = float_min_;
  if (int_count_ > 0) m = std::min(m, static_cast<double>(int_min_));
  return json_double(m);
}

std::string ArgStats::max_text() const {
  if (count() == 0) return "null";
  if (float_count_ == 0) return int128_to_string(int_max_);
  double m = float_max_;
  if (int_count_ > 0) m = std::max(m, static_cast<double>(int_max_));
  return json_double(m);
}

std::string ArgStats::mean_text() const {
  if (count() == 0) return "null";
  if (float_count_ == 0) return decimal_ratio_signed(int_sum_, int_count_);
  return json_double((float_sum_ + static_cast<double>(int_sum_)) / static_cast<double>(count()));
}

void SignedLog2Histogram::merge(const SignedLog2Histogram& other) {
  for (size_t i = 0; i < negative_.size(); ++i) negative_[i] += other.negative_[i];
  for (size_t i = 0; i < positive_.size(); ++i) positive_[i] += other.positive_[i];
}

bool ArgStats::merge(const ArgStats& later) {
  if (float_count_ > 0 && later.float_count_ > 0) return false;
  if (later.int_count_ > 0) {
    if (int_count_ == 0 || later.int_min_ < int_min_) int_min_ = later.int_min_;
    if (int_count_ == 0 || later.int_max_ > int_max_) int_max_ = later.int_max_;
    int_sum_ += later.int_sum_;
    int_count_ += later.int_count_;
  }
  if (later.float_count_ > 0) {
    float_min_ = later.float_min_;
    float_max_ = later.float_max_;
    float_sum_ = later.float_sum_;
    float_count_ = later.float_count_;
  }
  missing_ += later.missing_;
  log2_.merge(later.log2_);
  if (linear_ && later.linear_) linear_->merge(*later.linear_);
  return true;
}

std::vector<HistogramBucket> ArgStats::buckets() const {
  return linear_ ? linear_->buckets() : log2_.buckets();
}

ArgHistogramAnalyzer::ArgHistogramAnalyzer(ArgHistogramConfig config)
    : config_(std::move(config)),
      overall_(config_.linear),
      group_index_(config_.by && config_.by->kind != KeySpec::Kind::tid &&
                   config_.by->kind != KeySpec::Kind::pid) {}

void ArgHistogramAnalyzer::on_event(uint32_t global_site, uint32_t domain, const format::Event& e) {
  if (global_site >= config_.selected.size() || !config_.selected[global_site]) return;
  ArgStats* group = nullptr;
  const SiteInfo* site = config_.sites[global_site];
  if (config_.by) {
    GroupKey key = group_key_of(*config_.by, domain, e, site, &config_.hosts);
    bool added = false;
    std::optional<uint32_t> index =
        group_index_.find_or_add(key, groups_.size() < config_.max_groups, &added);
    if (added) {
      groups_.push_back(std::make_unique<ArgGroup>(ArgGroup{std::move(key), ArgStats(config_.linear)}));
    }
    if (index) {
      group = &groups_[*index]->stats;
    } else {
      ++outside_groups_;
    }
  }
  int i = config_.arg.at(site);
  if (i < 0 || !e.has_arg(i)) {
    overall_.add_missing();
    if (group != nullptr) group->add_missing();
    return;
  }
  ArgType type = ArgType::unsigned_int;
  if (site != nullptr && static_cast<size_t>(i) < site->arg_types.size()) {
    type = site->arg_types[static_cast<size_t>(i)];
  }
  overall_.add(e.args[i], type);
  if (group != nullptr) group->add(e.args[i], type);
}

bool ArgHistogramAnalyzer::merge(const ArgHistogramAnalyzer& later) {
  if (outside_groups_ > 0 || later.outside_groups_ > 0) return false;
  if (!overall_.merge(later.overall_)) return false;
  for (const std::unique_ptr<ArgGroup>& g : later.groups_) {
    bool added = false;
    std::optional<uint32_t> index =
        group_index_.find_or_add(g->key, groups_.size() < config_.max_groups, &added);
    if (!index) return false;
    if (added)
      groups_.push_back(std::make_unique<ArgGroup>(ArgGroup{g->key, ArgStats(config_.linear)}));
    if (!groups_[*index]->stats.merge(g->stats)) return false;
  }
  return true;
}

std::vector<const ArgGroup*> ArgHistogramAnalyzer::groups() const {
  std::vector<const ArgGroup*> out;
  for (const auto& g : groups_) out.push_back(g.get());
  std::sort(out.begin(), out.end(),
            [](const ArgGroup* a, const ArgGroup* b) { return group_key_less(a->key, b->key); });
  return out;
}

}  // namespace usdt::report
