// Pairs start and end events (pairing_rules.h) as they come, in time order:
// each end closes the most recent open start of the same key (thread,
// process or an argument such as a request id), so nested starts on one key
// pair like a stack, as recursive functions do. Function probes carry their
// stack pointer (formats/FORMAT.md 3.4, the frame): with the thread as key,
// a return pairs with the entry whose frame is its own minus 8, and entries
// with a lower frame still open were abandoned (longjmp, an exception). An
// end with no open start is counted (unmatched_ends); an event lacking the
// key argument is counted apart (missing_key_*). Memory holds the open
// starts only.
//
// This is the rule `usdt-report latency` pairs by (report/pairing/) and the
// recorder's latency triggers fire on (record/output/); what either keeps
// of a pair (histograms, groups, a snapshot) is theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/flat_map.h"
#include "formats/trace_types.h"
#include "pairing/pairing_rules.h"

namespace usdt::pairing {

// The pairing key of a thread or process: the trace file's key domain in
// bits 32-47, the id below (the class of pairing_rules.h in bits 48-63).
inline uint64_t pairing_id_key(uint32_t domain, uint32_t id) {
  return (uint64_t{domain} << 32) | id;
}

class PairMatcher {
 public:
  // kept_end: an end with no open start here, kept (later_segment).
  enum class Outcome : uint8_t { ignored, started, paired, unmatched_end, kept_end, missing_key };

  // An open start. Node indexes are dense and reused once a start is closed.
  struct Node {
    uint64_t time = 0;
    uint32_t below = 0;  // the key's next open start under this one: index + 1, 0 = none
    uint32_t domain = 0;
    uint32_t pid = 0;
    uint32_t tid = 0;
    uint32_t site = 0;
    uint64_t frame = 0;  // the entry's stack pointer (function probes), 0 = none
    uint64_t tag = 0;    // the caller's (on_event)
    bool live = false;
  };
  // The pairing key of an event: a number, or for a string argument the
  // string in key_text() (a flag byte, 1 when cut, then the bytes).
  struct Key {
    bool is_string = false;
    uint64_t value = 0;
  };
  // An end with no open start of its key in this segment (later_segment).
  struct KeptEnd {
    Key key;
    std::string key_text;  // key_text() of a string key
    uint64_t time = 0;
    uint64_t frame = 0;
    uint32_t site = 0;
    uint64_t tag = 0;  // the caller's (on_event)
  };

  explicit PairMatcher(PairingRules rules);
  // A site added after construction (a probe attached during a recording):
  // it takes the next site index.
  void add_site(SiteRole role, uint16_t pair_class, int key_arg);

  // Feeds one event, in time order; site indexes the rules' per-site
  // vectors (others are ignored). tag is the caller's own value for the
  // event, kept with a start. After `started`, last_node() is the new
  // start's node; after `paired`, last_node() is the start it closed
  // (readable until the next call) and last_key() (with key_text()) the key;
  // after `kept_end`, the end is kept_ends().back().
  [[gnu::always_inline]] Outcome on_event(uint32_t site, uint32_t domain, const format::Event& e,
                                          uint64_t time, uint64_t tag = 0);

  uint32_t last_node() const { return last_node_; }
  const Node& node(uint32_t index) const { return nodes_[index]; }
  const Key& last_key() const { return last_key_; }
  const std::string& key_text() const { return scratch_; }
  const PairingRules& rules() const { return rules_; }

  // Merging a later segment's matcher into this one (both made with the same
  // rules, later's with later_segment), in this order:
  // merge_kept_ends: later's kept ends close the starts open here, as they
  // would have in one pass; f(i, node) hears of later's i-th kept end with
  // the node of the start it closed (readable during the call, key_text()
  // set for a string key), or nullptr when it stays unmatched (counted).
  void merge_kept_ends(const PairMatcher& later, const std::function<void(size_t, const Node*)>& f);
  // merge_open_starts: later's open starts go on top of these, each key's
  // in order; moved(later_index, index) for each; then the counts add up.
  void merge_open_starts(const PairMatcher& later,
                         const std::function<void(uint32_t, uint32_t)>& moved = {});

  // Replaces every tag kept (open starts, kept ends) by f(tag).
  void retag(const std::function<uint64_t(uint64_t)>& f);

  const std::vector<KeptEnd>& kept_ends() const { return kept_ends_; }
  uint64_t open_starts() const { return open_count_; }
  // Starts never paired: still open, or abandoned (a function entry whose
  // frame a later return on its thread showed to be unwound).
  uint64_t unmatched_starts() const { return open_count_ + abandoned_starts_; }
  uint64_t unmatched_ends() const { return unmatched_ends_; }
  uint64_t missing_key_starts() const { return missing_key_starts_; }
  uint64_t missing_key_ends() const { return missing_key_ends_; }

  // The starts still open, in no particular order: f(site, domain, time, tag).
  template <typename F>
  void for_each_open_start(F&& f) const {
    for (const Node& n : nodes_) {
      if (n.live) f(n.site, n.domain, n.time, n.tag);
    }
  }

 private:
  // What on_event needs of a site, in one place: its role, and for thread
  // and process keys the pairing class in bits 48-63 of the key.
  struct SiteRule {
    SiteRole role = SiteRole::none;
    uint64_t key_class = 0;
  };
  enum class Pop : uint8_t { paired, none_open, frames_disagree };

  // on_event for what the inline path leaves: argument keys, returns with
  // a frame.
  [[gnu::noinline]] Outcome on_event_general(uint32_t site, uint32_t domain, const format::Event& e,
                                             uint64_t time, uint64_t tag);
  [[gnu::noinline]] void keep_end(const Key& key, uint32_t site, const format::Event& e,
                                  uint64_t time, uint64_t tag);
  [[gnu::always_inline]] void init_start(uint32_t index, uint32_t site, uint32_t domain,
                                         const format::Event& e, uint64_t time, uint64_t tag);
  bool key_of(uint32_t site, uint32_t domain, const format::Event& e, Key* key);
  [[gnu::always_inline]] uint32_t new_node();
  // Puts a node no longer live on the free list (its `below` is then the
  // list's link: read it before).
  void release_node(uint32_t index) {
    nodes_[index].below = free_head_;
    free_head_ = index + 1;
  }
  void push_start(const Key& key, uint32_t index);
  // Takes the open start of key that an end with this frame closes (the
  // node stays readable until the next new_node(), but for its `below`).
  Pop pop_start(const Key& key, uint64_t end_frame, uint32_t* index);
  uint32_t* find_head(const Key& key);
  uint32_t& head_of(const Key& key);
  void erase_head(const Key& key);
  void drop_abandoned(uint32_t* head, uint64_t return_frame);
  bool frames_agree(const Node& start, uint64_t end_frame) const;

  // A hash map from strings that finds by string_view without a copy.
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using StringMap = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

  PairingRules rules_;
  std::vector<SiteRule> site_rules_;  // per site
  uint32_t site_count_ = 0;           // site_rules_.size(), at hand for on_event
  bool id_key_ = false;               // the thread or the process
  bool key_is_pid_ = false;
  FlatMap<uint32_t> open_;  // key -> top node of its stack (index + 1; 0 = none)
  StringMap open_strings_;  // the same for string keys
  std::string scratch_;     // the current string key
  std::vector<Node> nodes_;
  uint32_t free_head_ = 0;  // a free node (index + 1, 0 = none); free nodes link by `below`
  uint32_t last_node_ = 0;
  Key last_key_;
  uint64_t open_count_ = 0;
  uint64_t abandoned_starts_ = 0;
  uint64_t unmatched_ends_ = 0;
  uint64_t missing_key_starts_ = 0;
  uint64_t missing_key_ends_ = 0;
  std::vector<KeptEnd> kept_ends_;  // later_segment, in time order
};

inline uint32_t PairMatcher::new_node() {
  if (free_head_ != 0) {
    const uint32_t index = free_head_ - 1;
    free_head_ = nodes_[index].below;
    return index;
  }
  nodes_.emplace_back();
  return static_cast<uint32_t>(nodes_.size() - 1);
}

inline void PairMatcher::init_start(uint32_t index, uint32_t site, uint32_t domain,
                                    const format::Event& e, uint64_t time, uint64_t tag) {
  Node& n = nodes_[index];
  n.time = time;
  n.domain = domain;
  n.pid = e.pid;
  n.tid = e.tid;
  n.site = site;
  n.frame = e.frame;
  n.tag = tag;
}

// The common case (a thread or process key, no frame to check at an end)
// without the general path's lookups; the same result, step for step.
inline PairMatcher::Outcome PairMatcher::on_event(uint32_t site, uint32_t domain,
                                                  const format::Event& e, uint64_t time,
                                                  uint64_t tag) {
  if (site >= site_count_) return Outcome::ignored;
  const SiteRule& rule = site_rules_[site];
  if (rule.role == SiteRole::none) return Outcome::ignored;
  // A return with a frame may drop abandoned entries first: the general path.
  if (!id_key_ || (rule.role == SiteRole::end && e.frame != 0)) {
    return on_event_general(site, domain, e, time, tag);
  }
  const uint64_t key = pairing_id_key(domain, key_is_pid_ ? e.pid : e.tid) | rule.key_class;
  if (rule.role == SiteRole::start) {
    const uint32_t index = new_node();
    init_start(index, site, domain, e, time, tag);
    uint32_t& head = open_[key];
    nodes_[index].below = head;
    nodes_[index].live = true;
    head = index + 1;
    ++open_count_;
    last_node_ = index;
    return Outcome::started;
  }
  last_key_ = Key{false, key};
  uint32_t* head = open_.find(key);
  if (head == nullptr || *head == 0) {
    if (rules_.later_segment) {
      keep_end(last_key_, site, e, time, tag);
      return Outcome::kept_end;
    }
    ++unmatched_ends_;
    return Outcome::unmatched_end;
  }
  const uint32_t index = *head - 1;
  Node& n = nodes_[index];
  *head = n.below;  // thread and process keys are few and come back: the slot stays
  n.live = false;
  release_node(index);
  --open_count_;
  last_node_ = index;
  return Outcome::paired;
}

}  // namespace usdt::pairing
