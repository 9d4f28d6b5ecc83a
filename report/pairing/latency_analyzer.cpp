#include "report/pairing/latency_analyzer.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "report/stats/query_shape.h"

namespace usdt::report {

namespace {

// Top-N order: slower first, and among equals the earlier start, then the
// earlier end, then by where the pair is. An order that ties only identical
// pairs keeps the same N whatever order the pairs come in, as the segments
// of a parallel read bring them. Used as the heap's "less", the heap's front
// is the pair that drops out first.
bool ranks_higher(const LatencyPair& a, const LatencyPair& b) {
  if (a.duration != b.duration) return a.duration > b.duration;
  return std::tie(a.start_time, a.end_time, a.domain, a.tid, a.pid, a.start_site, a.end_site, a.key,
                  a.key_text) < std::tie(b.start_time, b.end_time, b.domain, b.tid, b.pid,
                                         b.start_site, b.end_site, b.key, b.key_text);
}

// 64-bit FNV-1a: the number that stands for a string key (export's async id).
uint64_t string_hash(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

namespace {

// The matcher's rules for the latency options: the key's kind and, for an
// argument, its index at each site (by name, where sites may differ).
pairing::PairingRules pairing_rules(const LatencyConfig& c) {
  pairing::PairingRules rules;
  rules.roles = c.roles;
  rules.pair_class = c.pair_class;
  rules.later_segment = c.later_segment;
  switch (c.key.kind) {
    case KeySpec::Kind::tid: rules.key = pairing::KeyKind::tid; break;
    case KeySpec::Kind::pid: rules.key = pairing::KeyKind::pid; break;
    // host is not a pairing key (the options refuse it): no site has it.
    case KeySpec::Kind::host:
    case KeySpec::Kind::arg: rules.key = pairing::KeyKind::arg; break;
  }
  if (c.key.kind == KeySpec::Kind::arg) {
    rules.key_arg.resize(c.roles.size(), -1);
    for (size_t s = 0; s < c.roles.size(); ++s) {
      const SiteInfo* site = s < c.sites.size() ? c.sites[s] : nullptr;
      rules.key_arg[s] = c.key.arg.name.empty() ? c.key.arg.index : c.key.arg.at(site);
    }
  }
  if (c.key.shape != KeyShape::none) {
    rules.string_key_shape = [shape = c.key.shape](std::string_view bytes) {
      return shape_of(shape, bytes);
    };
  }
  return rules;
}

}  // namespace

LatencyAnalyzer::LatencyAnalyzer(LatencyConfig config)
    : config_(std::move(config)),
      matcher_(pairing_rules(config_)),
      detail_(config_.by.has_value() || config_.top > 0),
      overall_(config_.linear),
      group_index_(config_.by && config_.by->kind != KeySpec::Kind::tid &&
                   config_.by->kind != KeySpec::Kind::pid) {}

const SiteInfo* LatencyAnalyzer::site_info(uint32_t global_site) const {
  return global_site < config_.sites.size() ? config_.sites[global_site] : nullptr;
}

bool LatencyAnalyzer::merge(LatencyAnalyzer& later, const KeptEndHandler& on_kept_end) {
  if (pairs_outside_groups_ > 0 || later.pairs_outside_groups_ > 0) return false;
  const bool want_pairs = config_.by || config_.top > 0 || on_kept_end;
  const std::vector<pairing::PairMatcher::KeptEnd>& kept = later.matcher_.kept_ends();
  matcher_.merge_kept_ends(later.matcher_, [&](size_t i, const Node* n) {
    if (n == nullptr) {
      if (on_kept_end) on_kept_end(i, nullptr);
      return;
    }
    const uint64_t duration = kept[i].time >= n->time ? kept[i].time - n->time : 0;
    overall_.add(duration);
    if (!want_pairs) return;
    LatencyPair p = make_pair(*n, kept[i].key, kept[i].site, kept[i].time, kept[i].tag);
    const uint32_t index = static_cast<uint32_t>(n - &matcher_.node(0));
    const GroupKey* group = nullptr;
    if (config_.by) {
      group = &node_group(index);
      if (!group->present && i < later.kept_groups_.size()) group = &later.kept_groups_[i];
    }
    record(group != nullptr ? *group : GroupKey{}, p);
    if (on_kept_end) {
      if (group != nullptr) p.group = *group;
      on_kept_end(i, &p);
    }
  });
  for (const LatencyPair& p : later.top_heap_) add_to_top(p);
  if (config_.by) {
    for (const std::unique_ptr<LatencyGroup>& g : later.groups_) {
      bool added = false;
      std::optional<uint32_t> index =
          group_index_.find_or_add(g->key, groups_.size() < config_.max_groups, &added);
      if (!index) return false;
      if (added) {
        groups_.push_back(
            std::make_unique<LatencyGroup>(LatencyGroup{g->key, DurationStats(config_.linear)}));
      }
      groups_[*index]->stats.merge(g->stats);
    }
    if (pairs_outside_groups_ > 0) return false;
  }
  matcher_.merge_open_starts(later.matcher_, [&](uint32_t from, uint32_t to) {
    if (config_.by) node_group(to) = later.node_group(from);
  });
  overall_.merge(later.overall_);
  return true;
}

void LatencyAnalyzer::retag(const std::function<uint64_t(uint64_t)>& f) {
  matcher_.retag(f);
  for (LatencyPair& p : top_heap_) {
    p.start_tag = f(p.start_tag);
    p.end_tag = f(p.end_tag);
  }
}

GroupKey LatencyAnalyzer::group_of(uint32_t global_site, uint32_t domain,
                                   const format::Event& e) const {
  return group_key_of(*config_.by, domain, e, site_info(global_site), &config_.hosts);
}

LatencyPair LatencyAnalyzer::make_pair(const Node& n, const Key& key, uint32_t end_site,
                                       uint64_t end_time, uint64_t end_tag) const {
  LatencyPair p;
  p.start_time = n.time;
  p.end_time = end_time;
  p.duration = end_time >= n.time ? end_time - n.time : 0;
  p.domain = n.domain;
  p.pid = n.pid;
  p.tid = n.tid;
  p.start_site = n.site;
  p.end_site = end_site;
  p.start_tag = n.tag;
  p.end_tag = end_tag;
  // Thread and process keys: the id, without domain and class.
  p.key = config_.key.kind == KeySpec::Kind::arg ? key.value : static_cast<uint32_t>(key.value);
  if (key.is_string) {
    const std::string& text = matcher_.key_text();
    p.key = string_hash(text);
    p.key_type = ArgType::string;
    p.key_text.assign(text, 1);
    p.key_truncated = text[0] == '\1';
  } else if (config_.key.kind == KeySpec::Kind::arg) {
    const SiteInfo* site = config_.sites[n.site];
    int i = config_.key.arg.at(site);
    if (site != nullptr && i >= 0 && static_cast<size_t>(i) < site->arg_types.size())
      p.key_type = site->arg_types[static_cast<size_t>(i)];
    if (p.key_type == ArgType::string) p.key_type = ArgType::unsigned_int;
  }
  return p;
}

void LatencyAnalyzer::on_event_detail(Outcome outcome, uint32_t global_site, uint32_t domain,
                                      const format::Event& e, uint64_t time, LatencyPair* pair,
                                      uint64_t tag) {
  if (outcome == Outcome::started) {
    if (config_.by) node_group(matcher_.last_node()) = group_of(global_site, domain, e);
    return;
  }
  if (outcome == Outcome::kept_end) {
    if (config_.by) {
      kept_groups_.resize(matcher_.kept_ends().size() - 1);
      kept_groups_.push_back(group_of(global_site, domain, e));
    }
    return;
  }
  const uint32_t index = matcher_.last_node();
  const LatencyPair p = make_pair(matcher_.node(index), matcher_.last_key(), global_site, time, tag);
  GroupKey group;
  if (detail_) {
    if (config_.by) {
      group = std::move(node_group(index));
      if (!group.present) group = group_of(global_site, domain, e);
    }
    record(group, p);
  }
  if (pair != nullptr) {
    *pair = p;
    if (config_.by) pair->group = std::move(group);
  }
}

void LatencyAnalyzer::record(const GroupKey& g, const LatencyPair& pair) {
  if (config_.by) {
    bool added = false;
    std::optional<uint32_t> index =
        group_index_.find_or_add(g, groups_.size() < config_.max_groups, &added);
    if (added) {
      groups_.push_back(std::make_unique<LatencyGroup>(LatencyGroup{g, DurationStats(config_.linear)}));
    }
    if (!index) {
      ++pairs_outside_groups_;
    } else {
      groups_[*index]->stats.add(pair.duration);
    }
  }
  add_to_top(pair);
}

void LatencyAnalyzer::add_to_top(const LatencyPair& pair) {
  if (config_.top > 0) {
    auto cmp = [](const LatencyPair& a, const LatencyPair& b) { return ranks_higher(a, b); };
    if (top_heap_.size() < config_.top) {
      top_heap_.push_back(pair);
      std::push_heap(top_heap_.begin(), top_heap_.end(), cmp);
    } else if (ranks_higher(pair, top_heap_.front())) {
      std::pop_heap(top_heap_.begin(), top_heap_.end(), cmp);
      top_heap_.back() = pair;
      std::push_heap(top_heap_.begin(), top_heap_.end(), cmp);
    }
  }
}

std::vector<const LatencyGroup*> LatencyAnalyzer::groups() const {
  std::vector<const LatencyGroup*> out;
  for (const auto& g : groups_) out.push_back(g.get());
  std::sort(out.begin(), out.end(), [](const LatencyGroup* a, const LatencyGroup* b) {
    return group_key_less(a->key, b->key);
  });
  return out;
}

std::vector<LatencyPair> LatencyAnalyzer::top() const {
  std::vector<LatencyPair> out = top_heap_;
  std::sort(out.begin(), out.end(), [](const LatencyPair& a, const LatencyPair& b) {
    return ranks_higher(a, b);
  });
  return out;
}

}  // namespace usdt::report
