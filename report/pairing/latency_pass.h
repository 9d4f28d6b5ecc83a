// The pairing's consumer of the event pass (report/input/event_pass.h), which
// latency, heatmap and html share: starts and ends into the pairing, the
// events lost among those paired, with --slowest the stacks of the events,
// numbered in a store, and for heat maps each pair's duration at the time
// of its end event (when the latency became known, as trace2heatmap.pl
// does): one grid of every pair, and with --by one per group.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "report/input/event_pass.h"
#include "report/pairing/latency_analyzer.h"
#include "report/stats/time_grid.h"
#include "report/symbols/stack_store.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

struct GroupKeyLess {
  bool operator()(const GroupKey& a, const GroupKey& b) const { return group_key_less(a, b); }
};

// The heat maps of the pairs (LatencyPass::grids).
struct LatencyGrids {
  uint64_t timeline_start = 0;  // time 0 of the columns
  bool by = false;
  TimeGrid all;
  std::map<GroupKey, TimeGrid, GroupKeyLess> groups;  // with by

  void add(const LatencyPair& p) {
    const uint64_t at = p.end_time >= timeline_start ? p.end_time - timeline_start : 0;
    all.add_unsigned(at, p.duration);
    if (by) groups[p.group].add_unsigned(at, p.duration);
  }
  void merge(const LatencyGrids& later) {
    all.merge(later.all);
    for (const auto& [key, grid] : later.groups) groups[key].merge(grid);
  }
};

class LatencyPass : public PassConsumer {
 public:
  // wanted: per global site, whether it is a start or an end (lost records
  // of other sites are not counted). symbols: with --slowest, the mappings
  // as of the input's start, which the pass copies and keeps (its stacks are
  // named after the merge); null without.
  LatencyPass(LatencyConfig config, const std::vector<uint8_t>& wanted, const EventFilter& filter,
              const StackSymbolizer* symbols, std::unique_ptr<LatencyGrids> heat_maps = nullptr)
      : analyzer(std::move(config)),
        grids(std::move(heat_maps)),
        wanted_(&wanted),
        filter_(&filter) {
    if (symbols != nullptr) {
      this->symbols = std::make_unique<StackSymbolizer>(*symbols);
      stacks = std::make_unique<StackStore>();
    }
    figures_only_ = !stacks && !grids && analyzer.figures_only();
  }

  // The common case inlined in the pass's loop; the rest is on_event_in_full.
  [[gnu::always_inline]] void on_event(uint32_t site, uint32_t file, uint32_t domain,
                                       const format::Event& e, uint64_t time) {
    if (figures_only_) {
      analyzer.add_to_figures(site, domain, e, time);
      return;
    }
    on_event_in_full(site, file, domain, e, time);
  }
  [[gnu::noinline]] void on_event_in_full(uint32_t site, uint32_t file, uint32_t domain,
                                          const format::Event& e, uint64_t time) {
    const uint64_t tag = stacks ? stacks->add(*symbols, file, e) : 0;
    if (!grids) {
      analyzer.on_event(site, domain, e, time, nullptr, tag);
      return;
    }
    LatencyPair p;
    if (analyzer.on_event(site, domain, e, time, &p, tag) == LatencyAnalyzer::Outcome::paired)
      grids->add(p);
  }
  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) {
    if (symbols) symbols->on_process(file, p);
  }
  // Events the kernel lost among those paired (of their sites, or of no
  // known site): a lost start or end leaves its partner unmatched or, on a
  // key that repeats, paired with the wrong one.
  void on_lost(uint32_t, uint32_t site, const format::LostEvent& lost, uint64_t time) {
    const bool paired =
        lost.site_id == format::kNoSite || (site < wanted_->size() && (*wanted_)[site] != 0);
    if (paired && filter_->in_time_window(time)) this->lost += lost.count;
  }
  bool over_limit() const { return analyzer.pairs_outside_groups() > 0; }

  // Takes later's pairs, lost count and stacks (renumbered into this store).
  bool merge(LatencyPass& later) {
    lost += later.lost;
    if (later.stacks) {
      later.analyzer.retag([&](uint64_t tag) { return stacks->adopt(*later.stacks, tag); });
      merged_symbols.push_back(std::move(later.symbols));
      for (auto& s : later.merged_symbols) merged_symbols.push_back(std::move(s));
    }
    if (!grids) return analyzer.merge(later.analyzer);
    const bool merged = analyzer.merge(later.analyzer, [&](size_t, const LatencyPair* p) {
      if (p != nullptr) grids->add(*p);
    });
    if (merged) grids->merge(*later.grids);
    return merged;
  }

  LatencyAnalyzer analyzer;
  uint64_t lost = 0;
  std::unique_ptr<StackSymbolizer> symbols;
  std::unique_ptr<StackStore> stacks;
  // The symbolizers of the parts merged into this one, which name the
  // stacks adopted from their stores.
  std::vector<std::unique_ptr<StackSymbolizer>> merged_symbols;
  // Heat maps, when asked for (read_latency).
  std::unique_ptr<LatencyGrids> grids;

 private:
  bool figures_only_ = false;  // no stacks, heat maps, groups or slowest pairs
  const std::vector<uint8_t>* wanted_;
  const EventFilter* filter_;
};

// Per global site, whether it is a start or an end of config (the sites a
// LatencyPass reads).
std::vector<uint8_t> paired_sites(const LatencyConfig& config);

// The pairs of options' --start and --end (--key, --by, --top, --slowest)
// in input, read by the event pass on options.jobs threads; with_grids:
// also their heat maps. The pass's read problems are appended to warnings.
// Fails when --start or --end names no probe of the input.
Result<LatencyPass> read_latency(const ReportOptions& options, TraceInput& input, bool with_grids,
                                 std::vector<std::string>* warnings);

// read_latency in parts, for a pass that reads more than the pairs (html):
// the consumers of its segments, given only the events of the sites it
// wants (sites()) as read_latency's readers give them. Kept in place while
// its consumers live (they point into it).
class LatencyReading {
 public:
  // Fails when --start or --end names no probe of the input.
  static Result<std::unique_ptr<LatencyReading>> plan(const ReportOptions& options,
                                                      const TraceInput& input, bool with_grids);
  LatencyReading(const LatencyReading&) = delete;
  LatencyReading& operator=(const LatencyReading&) = delete;

  // Per global site: 1 for a start or an end.
  const std::vector<uint8_t>& sites() const { return wanted_; }
  // Whether the pairs need the events' arguments (a key or groups by one).
  bool reads_arguments() const;
  // With --slowest the pairs keep their stacks, named against symbols (the
  // mappings as of the segment's start, copied); without, symbols is unused.
  bool keeps_stacks() const { return slowest_; }
  // A segment's consumer; filter: the pass's.
  LatencyPass make(const Segment& segment, const EventFilter& filter,
                   const StackSymbolizer* symbols) const;

 private:
  LatencyReading(LatencyConfig config, const TraceInput& input, bool with_grids, bool slowest);

  LatencyConfig config_;
  std::vector<uint8_t> wanted_;
  uint64_t timeline_start_;
  bool with_grids_;
  bool slowest_;
};

}  // namespace usdt::report
