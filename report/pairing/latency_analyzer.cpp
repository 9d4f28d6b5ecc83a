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

LatencyAnalyzer::LatencyAnalyzer(LatencyConfig config)
    : config_(std::move(config)),
      overall_(config_.linear),
      group_index_(config_.by && config_.by->kind != KeySpec::Kind::tid &&
                   config_.by->kind != KeySpec::Kind::pid) {
  rules_.resize(config_.roles.size());
  for (size_t s = 0; s < rules_.size(); ++s) {
    rules_[s].role = config_.roles[s];
    // Domains (trace files) stay below 2^16, so bits 48-63 are free for the class.
    if (s < config_.pair_class.size()) rules_[s].key_class = uint64_t{config_.pair_class[s]} << 48;
  }
  const bool id_key =
      config_.key.kind == KeySpec::Kind::tid || config_.key.kind == KeySpec::Kind::pid;
  id_fast_path_ = id_key && !config_.by && config_.top == 0;
  key_is_pid_ = config_.key.kind == KeySpec::Kind::pid;
}

inline bool LatencyAnalyzer::key_of(uint32_t global_site, uint32_t domain, const format::Event& e,
                                    Key* key) {
  const uint64_t cls = rules_[global_site].key_class;
  switch (config_.key.kind) {
    case KeySpec::Kind::tid:
      key->value = pairing_id_key(domain, e.tid) | cls;
      return true;
    case KeySpec::Kind::pid:
      key->value = pairing_id_key(domain, e.pid) | cls;
      return true;
    case KeySpec::Kind::host: return false;  // not a pairing key: options refuse it
    case KeySpec::Kind::arg: {
      int i = config_.key.arg.name.empty() ? config_.key.arg.index
                                            : config_.key.arg.at(site_info(global_site));
      if (i < 0 || !e.has_arg(i)) return false;
      key->is_string = e.is_string(i);
      if (!key->is_string) {
        key->value = e.args[i];
        return true;
      }
      const format::StringArg& s = e.string_arg(i);
      scratch_.assign(1, s.truncated ? '\1' : '\0');
      if (config_.key.shape == KeyShape::none) {
        scratch_.append(s.bytes);
      } else {
        scratch_.append(shape_of(config_.key.shape, s.bytes));
      }
      return true;
    }
  }
  return false;
}

inline uint32_t* LatencyAnalyzer::find_head(const Key& key) {
  if (!key.is_string) return open_.find(key.value);
  auto it = open_strings_.find(std::string_view(scratch_));
  return it == open_strings_.end() ? nullptr : &it->second;
}

inline uint32_t& LatencyAnalyzer::head_of(const Key& key) {
  if (!key.is_string) return open_[key.value];
  auto it = open_strings_.find(std::string_view(scratch_));
  if (it == open_strings_.end()) it = open_strings_.emplace(scratch_, 0).first;
  return it->second;
}

void LatencyAnalyzer::erase_head(const Key& key) {
  if (!key.is_string) {
    open_.erase(key.value);
    return;
  }
  auto it = open_strings_.find(std::string_view(scratch_));
  if (it != open_strings_.end()) open_strings_.erase(it);
}

const SiteInfo* LatencyAnalyzer::site_info(uint32_t global_site) const {
  return global_site < config_.sites.size() ? config_.sites[global_site] : nullptr;
}

// Function probes carry their stack pointer (FORMAT.md 3.4): a return's is
// its entry's plus 8 (the popped return address). Open entries of the thread
// with a lower one were left by a longjmp or an exception unwinding past
// them: they can no longer return, so they are unmatched starts, and the
// return pairs with its own entry further up.
void LatencyAnalyzer::drop_abandoned(uint32_t* head, uint64_t return_frame) {
  while (*head != 0) {
    Node& n = nodes_[*head - 1];
    if (n.frame == 0 || n.frame + 8 >= return_frame) return;
    *head = n.below;
    n.live = false;
    release_node(static_cast<uint32_t>(&n - nodes_.data()));
    --open_count_;
    ++abandoned_starts_;
  }
}

// A return whose frame is below its innermost open entry's belongs to a call
// that began before that entry was seen (before the recording): unmatched.
bool LatencyAnalyzer::frames_agree(const Node& start, uint64_t end_frame) const {
  if (config_.key.kind != KeySpec::Kind::tid || start.frame == 0 || end_frame == 0) return true;
  return start.frame + 8 == end_frame;
}

inline void LatencyAnalyzer::push_start(const Key& key, uint32_t index) {
  uint32_t& head = head_of(key);
  nodes_[index].below = head;
  nodes_[index].live = true;
  head = index + 1;
  ++open_count_;
}

inline LatencyAnalyzer::Pop LatencyAnalyzer::pop_start(const Key& key, uint64_t end_frame,
                                                       uint32_t* index) {
  uint32_t* head = find_head(key);
  if (head != nullptr && end_frame != 0 && config_.key.kind == KeySpec::Kind::tid) {
    drop_abandoned(head, end_frame);
  }
  if (head == nullptr || *head == 0) return Pop::none_open;
  if (!frames_agree(nodes_[*head - 1], end_frame)) return Pop::frames_disagree;
  *index = *head - 1;
  Node& n = nodes_[*index];
  if (n.below != 0) {
    *head = n.below;
  } else if (config_.key.kind == KeySpec::Kind::arg) {
    // Argument keys (request ids) are unbounded: drop the empty stack.
    erase_head(key);
  } else {
    // Thread and process keys are few and come back: keep the empty slot.
    *head = 0;
  }
  n.live = false;
  release_node(*index);
  --open_count_;
  return Pop::paired;
}

bool LatencyAnalyzer::merge(LatencyAnalyzer& later, const KeptEndHandler& on_kept_end) {
  if (pairs_outside_groups_ > 0 || later.pairs_outside_groups_ > 0) return false;
  const bool want_pairs = config_.by || config_.top > 0 || on_kept_end;
  for (size_t i = 0; i < later.kept_ends_.size(); ++i) {
    const KeptEnd& end = later.kept_ends_[i];
    if (end.key.is_string) scratch_ = end.key_text;
    uint32_t index = 0;
    if (pop_start(end.key, end.frame, &index) != Pop::paired) {
      ++unmatched_ends_;
      if (on_kept_end) on_kept_end(i, nullptr);
      continue;
    }
    const Node& n = nodes_[index];
    const uint64_t duration = end.time >= n.time ? end.time - n.time : 0;
    overall_.add(duration);
    if (!want_pairs) continue;
    LatencyPair p = make_pair(n, end.key, end.site, end.time, end.tag);
    const GroupKey& group = n.group.present ? n.group : end.group;
    record(group, p);
    if (on_kept_end) {
      if (config_.by) p.group = group;
      on_kept_end(i, &p);
    }
  }
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
  // later's open starts, each key's from its outermost to its innermost.
  std::vector<uint32_t> chain;
  auto take_stack = [&](const Key& key, uint32_t head) {
    chain.clear();
    for (uint32_t i = head; i != 0; i = later.nodes_[i - 1].below) {
      chain.push_back(i - 1);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      uint32_t index = new_node();
      nodes_[index] = later.nodes_[*it];
      push_start(key, index);
    }
  };
  later.open_.for_each([&](uint64_t k, uint32_t head) { take_stack(Key{false, k}, head); });
  for (const auto& [text, head] : later.open_strings_) {
    scratch_ = text;
    take_stack(Key{true, 0}, head);
  }
  abandoned_starts_ += later.abandoned_starts_;
  unmatched_ends_ += later.unmatched_ends_;
  missing_key_starts_ += later.missing_key_starts_;
  missing_key_ends_ += later.missing_key_ends_;
  overall_.merge(later.overall_);
  return true;
}

void LatencyAnalyzer::retag(const std::function<uint64_t(uint64_t)>& f) {
  for (Node& n : nodes_) {
    if (n.live) n.tag = f(n.tag);
  }
  for (KeptEnd& end : kept_ends_) end.tag = f(end.tag);
  for (LatencyPair& p : top_heap_) {
    p.start_tag = f(p.start_tag);
    p.end_tag = f(p.end_tag);
  }
}

GroupKey LatencyAnalyzer::group_of(uint32_t global_site, uint32_t domain,
                                   const format::Event& e) const {
  return group_key_of(*config_.by, domain, e, site_info(global_site), &config_.hosts);
}

void LatencyAnalyzer::keep_end(const Key& key, uint32_t global_site, uint32_t domain,
                               const format::Event& e, uint64_t time, uint64_t tag) {
  kept_ends_.push_back(KeptEnd{key, key.is_string ? scratch_ : std::string(), time, e.frame,
                               global_site, tag,
                               config_.by ? group_of(global_site, domain, e) : GroupKey{}});
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
    p.key = string_hash(scratch_);
    p.key_type = ArgType::string;
    p.key_text.assign(scratch_, 1);
    p.key_truncated = scratch_[0] == '\1';
  } else if (config_.key.kind == KeySpec::Kind::arg) {
    const SiteInfo* site = config_.sites[n.site];
    int i = config_.key.arg.at(site);
    if (site != nullptr && i >= 0 && static_cast<size_t>(i) < site->arg_types.size())
      p.key_type = site->arg_types[static_cast<size_t>(i)];
    if (p.key_type == ArgType::string) p.key_type = ArgType::unsigned_int;
  }
  return p;
}

LatencyAnalyzer::Outcome LatencyAnalyzer::on_event_general(uint32_t global_site, uint32_t domain,
                                                           const format::Event& e, uint64_t time,
                                                           LatencyPair* pair, uint64_t tag) {
  const SiteRole role = rules_[global_site].role;
  Key key;
  if (!key_of(global_site, domain, e, &key)) {
    ++(role == SiteRole::start ? missing_key_starts_ : missing_key_ends_);
    return Outcome::missing_key;
  }
  if (role == SiteRole::start) {
    uint32_t index = new_node();
    init_start(index, global_site, domain, e, time, tag);
    if (config_.by) nodes_[index].group = group_of(global_site, domain, e);
    push_start(key, index);
    return Outcome::started;
  }
  uint32_t index = 0;
  Pop popped = pop_start(key, e.frame, &index);
  if (popped == Pop::none_open && config_.later_segment) {
    // Perhaps the end of a start in an earlier segment: merge() decides.
    keep_end(key, global_site, domain, e, time, tag);
    return Outcome::kept_end;
  }
  if (popped != Pop::paired) {
    ++unmatched_ends_;
    return Outcome::unmatched_end;
  }
  const Node& n = nodes_[index];

  const uint64_t duration = time >= n.time ? time - n.time : 0;
  overall_.add(duration);
  if (!config_.by && config_.top == 0 && pair == nullptr) return Outcome::paired;  // the common case

  const LatencyPair p = make_pair(n, key, global_site, time, tag);
  GroupKey group = n.group;
  if (config_.by && !group.present) group = group_of(global_site, domain, e);
  record(group, p);
  if (pair != nullptr) {
    *pair = p;
    if (config_.by) pair->group = std::move(group);
  }
  return Outcome::paired;
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
