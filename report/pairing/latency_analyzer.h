// `usdt-report latency` and `export`: durations of start/end pairs, paired
// by the shared rule (pairing/pair_matcher.h: the most recent open start of
// the same key; frames for function probes), kept as exact figures overall,
// per group (--by) and as the slowest pairs (--top, --slowest). Memory holds
// the open starts and one fixed-size histogram per group.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "pairing/pair_matcher.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"
#include "report/stats/duration_stats.h"
#include "report/stats/group_key.h"

namespace usdt::report {

using SiteRole = pairing::SiteRole;

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
  using Outcome = pairing::PairMatcher::Outcome;

  // Feeds one event (in time order). On `paired`, *pair describes it.
  // tag: the caller's own value for this event (e.g. the number of its call
  // stack), kept with a start and returned in the pair's start_tag/end_tag.
  Outcome on_event(uint32_t global_site, uint32_t domain, const format::Event& e, uint64_t time,
                   LatencyPair* pair, uint64_t tag = 0);

  // Whether on_event keeps only the overall figures (no --by, no --top):
  // then a caller that wants no pair back may call add_to_figures instead.
  bool figures_only() const { return !detail_; }
  // on_event without a pair or tag: the matcher's common case and one
  // addition, for a pass's inner loop.
  [[gnu::always_inline]] void add_to_figures(uint32_t global_site, uint32_t domain,
                                             const format::Event& e, uint64_t time) {
    if (matcher_.on_event(global_site, domain, e, time) == Outcome::paired) {
      const uint64_t start = matcher_.node(matcher_.last_node()).time;
      overall_.add(time >= start ? time - start : 0);
    }
  }

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
  uint64_t unmatched_starts() const { return matcher_.unmatched_starts(); }
  uint64_t unmatched_ends() const { return matcher_.unmatched_ends(); }
  uint64_t missing_key_starts() const { return matcher_.missing_key_starts(); }
  uint64_t missing_key_ends() const { return matcher_.missing_key_ends(); }

  // The starts still open, in no particular order: f(site, domain, time, tag).
  template <typename F>
  void for_each_open_start(F&& f) const {
    matcher_.for_each_open_start(std::forward<F>(f));
  }

 private:
  using Node = pairing::PairMatcher::Node;
  using Key = pairing::PairMatcher::Key;

  // What on_event does beyond the figures: groups, the slowest pairs, the
  // caller's pair.
  [[gnu::noinline]] void on_event_detail(Outcome outcome, uint32_t global_site, uint32_t domain,
                                         const format::Event& e, uint64_t time, LatencyPair* pair,
                                         uint64_t tag);
  // The pair of start node n closed by an end (key in the matcher's
  // key_text() if a string).
  LatencyPair make_pair(const Node& n, const Key& key, uint32_t end_site, uint64_t end_time,
                        uint64_t end_tag) const;
  GroupKey group_of(uint32_t global_site, uint32_t domain, const format::Event& e) const;
  const SiteInfo* site_info(uint32_t global_site) const;
  // The --by key of open start node index (grown as nodes are).
  GroupKey& node_group(uint32_t index) {
    if (index >= node_groups_.size()) node_groups_.resize(index + 1);
    return node_groups_[index];
  }
  void record(const GroupKey& group, const LatencyPair& pair);
  void add_to_top(const LatencyPair& pair);

  LatencyConfig config_;
  pairing::PairMatcher matcher_;
  // Whether on_event keeps more than the figures (--by, --top).
  bool detail_ = false;
  DurationStats overall_;
  std::vector<GroupKey> node_groups_;  // with by: per matcher node, its start's group
  std::vector<GroupKey> kept_groups_;  // with by: per kept end, the end's group
  std::vector<std::unique_ptr<LatencyGroup>> groups_;
  GroupIndex group_index_;  // group key -> index into groups_
  uint64_t pairs_outside_groups_ = 0;
  std::vector<LatencyPair> top_heap_;  // min-heap of the slowest
};

// The common case (only the figures kept) is the matcher's own inline path
// and one addition.
inline LatencyAnalyzer::Outcome LatencyAnalyzer::on_event(uint32_t global_site, uint32_t domain,
                                                          const format::Event& e, uint64_t time,
                                                          LatencyPair* pair, uint64_t tag) {
  const Outcome outcome = matcher_.on_event(global_site, domain, e, time, tag);
  if (outcome == Outcome::paired) {
    const uint64_t start = matcher_.node(matcher_.last_node()).time;
    overall_.add(time >= start ? time - start : 0);
  }
  if (!detail_ && pair == nullptr) return outcome;
  if (outcome == Outcome::paired || outcome == Outcome::started ||
      outcome == Outcome::kept_end) {
    on_event_detail(outcome, global_site, domain, e, time, pair, tag);
  }
  return outcome;
}

}  // namespace usdt::report
