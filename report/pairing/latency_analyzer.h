// Pairs start and end events into durations for `usdt-report latency` and
// `export`. Each end is paired with the most recent open start of the same
// key (tid, pid or an argument such as a request id): nested starts on one
// key pair like a stack, as recursive functions do. An end with no open
// start is counted (unmatched_ends); starts still open at the end of the
// input are counted (unmatched_starts); an event lacking the key argument
// is counted apart (missing_key_*). Memory holds only the open starts and
// one fixed-size histogram per group.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "report/stats/duration_stats.h"
#include "report/input/event_copy.h"
#include "report/input/flat_map.h"
#include "report/stats/group_key.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"

namespace usdt::report {

enum class SiteRole : uint8_t { none = 0, start = 1, end = 2 };

struct LatencyConfig {
  std::vector<SiteRole> roles;  // per global site
  // Per global site (or empty): starts and ends pair only within one class.
  // Function latency gives each probed file its own class, so that a return
  // of work in one file never closes an entry of work in another. 0..0xffff;
  // used with tid and pid keys.
  std::vector<uint16_t> pair_class;
  std::vector<const SiteInfo*> sites;  // per global site, for argument types
  KeySpec key;
  std::optional<KeySpec> by;
  std::vector<std::string> hosts;  // by key domain: its host name (--by host)
  std::optional<LinearSpec> linear;
  uint32_t top = 0;
  size_t max_groups = 1000;
  // A parallel report's segment after the first (report/input/segments.h): an
  // end that finds no open start of its key here may close one of an
  // earlier segment, so it is kept for merge() instead of counted
  // (Outcome::kept_end).
  bool later_segment = false;
};

// A group of --by (report/stats/group_key.h): the start event's pid, tid or
// argument value; for an argument the start event lacks, the end event's
// (e.g. a status code that only the end probe has).

struct LatencyPair {
  uint64_t start_time = 0;  // timeline
  uint64_t end_time = 0;
  uint64_t duration = 0;
  uint32_t domain = 0;
  uint32_t pid = 0;  // of the start event
  uint32_t tid = 0;
  uint32_t start_site = 0;  // global sites
  uint32_t end_site = 0;
  uint64_t key = 0;  // the key's value (tid, pid or raw argument); for a string, a hash of it
  ArgType key_type = ArgType::unsigned_int;
  std::string key_text;  // key_type string: the key's bytes
  bool key_truncated = false;
  // The callers' tags (on_event) of the start and the end event: latency
  // --slowest finds their call stacks by them. 0 = none.
  uint64_t start_tag = 0;
  uint64_t end_tag = 0;
  // With by, in the pairs handed to a caller (on_event, merge's
  // on_kept_end): the pair's group.
  GroupKey group;
};

struct LatencyGroup {
  GroupKey key;
  DurationStats stats;
};

class LatencyAnalyzer {
 public:
  explicit LatencyAnalyzer(LatencyConfig config);

  // kept_end: an end with no open start here, kept for merge() (later_segment).
  enum class Outcome : uint8_t { ignored, started, paired, unmatched_end, kept_end, missing_key };

  // Feeds one event (in time order). On `paired`, *pair describes it.
  // tag: the caller's own value for this event (e.g. the number of its call
  // stack), kept with a start and returned in the pair's start_tag/end_tag.
  Outcome on_event(uint32_t global_site, uint32_t domain, const format::Event& e, uint64_t time,
                   LatencyPair* pair, uint64_t tag = 0);

  // Takes later, the analyzer of the records that follow these (made with
  // later_segment): its kept ends close the starts open here, as they
  // would have read in one pass, then its open starts go on top of these,
  // and its groups' figures and slowest pairs add to these. False when the
  // result could differ from one pass: with by, once max_groups is reached
  // (which groups are kept depends on the order they came in); the caller
  // then reads the input in one pass. on_kept_end(i, pair), if given, hears
  // of later's i-th kept end (in time order): the pair it closed, or nullptr
  // when it stays unmatched.
  using KeptEndHandler = std::function<void(size_t, const LatencyPair*)>;
  bool merge(LatencyAnalyzer& later, const KeptEndHandler& on_kept_end = {});

  // Replaces every tag kept (open starts, kept ends, the slowest pairs) by
  // f(tag): a parallel segment's stack numbers become those of the store it
  // is merged into.
  void retag(const std::function<uint64_t(uint64_t)>& f);

  const DurationStats& overall() const { return overall_; }
  // Groups sorted by key (absent key last); empty without --by.
  std::vector<const LatencyGroup*> groups() const;
  uint64_t pairs_outside_groups() const { return pairs_outside_groups_; }
  // The slowest pairs, slowest first; ties by earlier start, then by end,
  // thread and sites, so that the pairs kept do not depend on the order they
  // came in.
  std::vector<LatencyPair> top() const;

  // Starts never paired: still open at the end, or abandoned (a function
  // entry whose frame a later return on its thread showed to be unwound).
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
    GroupKey group;
  };
  // What on_event needs of a site, in one place: its role, and for thread
  // and process keys the pairing class in bits 48-63 of the key.
  struct SiteRule {
    SiteRole role = SiteRole::none;
    uint64_t key_class = 0;
  };

  // The pairing key of an event: a number, or for a string argument the
  // string in scratch_ (a flag byte, 1 when cut, then the bytes).
  struct Key {
    bool is_string = false;
    uint64_t value = 0;
  };
  // An end with no open start of its key in this segment (later_segment).
  struct KeptEnd {
    Key key;
    std::string key_text;  // scratch_ of a string key
    uint64_t time = 0;
    uint64_t frame = 0;
    uint32_t site = 0;  // global
    uint64_t tag = 0;   // the caller's (on_event)
    GroupKey group;  // with by: the end event's, for a start that lacks it
  };
  enum class Pop : uint8_t { paired, none_open, frames_disagree };

  // on_event for what the fast path of on_event leaves: argument keys,
  // --by, --top, the caller's pair, function returns (frames).
  [[gnu::noinline]] Outcome on_event_general(uint32_t global_site, uint32_t domain,
                                             const format::Event& e, uint64_t time,
                                             LatencyPair* pair, uint64_t tag);
  // An end with no open start of its key here (later_segment): kept for merge().
  [[gnu::noinline]] void keep_end(const Key& key, uint32_t global_site, uint32_t domain,
                                  const format::Event& e, uint64_t time, uint64_t tag);
  // The pair of start node n closed by an end (key in scratch_ if a string).
  LatencyPair make_pair(const Node& n, const Key& key, uint32_t end_site, uint64_t end_time,
                        uint64_t end_tag) const;
  [[gnu::always_inline]] void init_start(uint32_t index, uint32_t global_site, uint32_t domain,
                                         const format::Event& e, uint64_t time, uint64_t tag);
  [[gnu::always_inline]] bool key_of(uint32_t global_site, uint32_t domain, const format::Event& e,
                                     Key* key);
  // A free node for a new open start.
  [[gnu::always_inline]] uint32_t new_node();
  // Puts a node no longer live on the free list (its `below` is then the
  // list's link: read it before).
  void release_node(uint32_t index) {
    nodes_[index].below = free_head_;
    free_head_ = index + 1;
  }
  // Makes node index the innermost open start of key.
  [[gnu::always_inline]] void push_start(const Key& key, uint32_t index);
  // Takes the open start of key that an end with this frame closes (the
  // node stays readable until the next new_node(), but for its `below`).
  [[gnu::always_inline]] Pop pop_start(const Key& key, uint64_t end_frame, uint32_t* index);
  [[gnu::always_inline]] uint32_t* find_head(const Key& key);
  [[gnu::always_inline]] uint32_t& head_of(const Key& key);
  void erase_head(const Key& key);
  GroupKey group_of(uint32_t global_site, uint32_t domain, const format::Event& e) const;
  void drop_abandoned(uint32_t* head, uint64_t return_frame);
  bool frames_agree(const Node& start, uint64_t end_frame) const;
  const SiteInfo* site_info(uint32_t global_site) const;
  void record(const GroupKey& group, const LatencyPair& pair);
  void add_to_top(const LatencyPair& pair);

  LatencyConfig config_;
  std::vector<SiteRule> rules_;  // per global site
  // The common case that on_event does itself: pairs on the thread or the
  // process, nothing kept besides the figures.
  bool id_fast_path_ = false;
  bool key_is_pid_ = false;
  FlatMap<uint32_t> open_;  // key -> top node of its stack (index + 1; 0 = none)
  StringMap open_strings_;  // the same for string keys
  std::string scratch_;     // the current string key
  std::vector<Node> nodes_;
  uint32_t free_head_ = 0;  // a free node (index + 1, 0 = none); free nodes link by `below`
  uint64_t open_count_ = 0;
  uint64_t abandoned_starts_ = 0;
  uint64_t unmatched_ends_ = 0;
  uint64_t missing_key_starts_ = 0;
  uint64_t missing_key_ends_ = 0;
  DurationStats overall_;
  std::vector<std::unique_ptr<LatencyGroup>> groups_;
  GroupIndex group_index_;  // group key -> index into groups_
  uint64_t pairs_outside_groups_ = 0;
  std::vector<LatencyPair> top_heap_;  // min-heap of the slowest
  std::vector<KeptEnd> kept_ends_;     // later_segment, in time order
};

// The pairing key of a thread or process: the trace file's key domain in
// bits 32-47, the id below.
inline uint64_t pairing_id_key(uint32_t domain, uint32_t id) {
  return (uint64_t{domain} << 32) | id;
}

inline uint32_t LatencyAnalyzer::new_node() {
  if (free_head_ != 0) {
    const uint32_t index = free_head_ - 1;
    free_head_ = nodes_[index].below;
    return index;
  }
  nodes_.emplace_back();
  return static_cast<uint32_t>(nodes_.size() - 1);
}

inline void LatencyAnalyzer::init_start(uint32_t index, uint32_t global_site, uint32_t domain,
                                        const format::Event& e, uint64_t time, uint64_t tag) {
  Node& n = nodes_[index];
  n.time = time;
  n.domain = domain;
  n.pid = e.pid;
  n.tid = e.tid;
  n.site = global_site;
  n.frame = e.frame;
  n.tag = tag;
}

// The common case (a thread or process key, only the figures kept) without
// the general path's lookups; the same result, step for step.
inline LatencyAnalyzer::Outcome LatencyAnalyzer::on_event(uint32_t global_site, uint32_t domain,
                                                          const format::Event& e, uint64_t time,
                                                          LatencyPair* pair, uint64_t tag) {
  if (global_site >= rules_.size()) return Outcome::ignored;
  const SiteRule& rule = rules_[global_site];
  if (rule.role == SiteRole::none) return Outcome::ignored;
  // A return with a frame may drop abandoned entries first: the general path.
  if (!id_fast_path_ || pair != nullptr || (rule.role == SiteRole::end && e.frame != 0)) {
    return on_event_general(global_site, domain, e, time, pair, tag);
  }
  const uint64_t key = pairing_id_key(domain, key_is_pid_ ? e.pid : e.tid) | rule.key_class;
  if (rule.role == SiteRole::start) {
    const uint32_t index = new_node();
    init_start(index, global_site, domain, e, time, tag);
    uint32_t& head = open_[key];
    nodes_[index].below = head;
    nodes_[index].live = true;
    head = index + 1;
    ++open_count_;
    return Outcome::started;
  }
  uint32_t* head = open_.find(key);
  if (head == nullptr || *head == 0) {
    if (config_.later_segment) {
      keep_end(Key{false, key}, global_site, domain, e, time, tag);
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
  overall_.add(time >= n.time ? time - n.time : 0);
  return Outcome::paired;
}

}  // namespace usdt::report
