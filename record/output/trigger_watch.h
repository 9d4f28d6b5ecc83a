// Watches the recorded events for the --snapshot-on triggers
// (trigger_spec.h). Events come as the drain loop read them, each CPU's
// buffer in turn, so not in time order; they are held until the drain loop
// says every earlier one has come (EventBatch::drained_through_ns) and then
// taken in time order, as usdt-report reads a trace: a latency trigger pairs
// them with the same rule as `usdt-report latency` (pairing/pair_matcher.h),
// a probe trigger tests its condition. Only events of the sites a trigger
// names are held; a site added during the recording is matched when it is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "pairing/pair_matcher.h"
#include "record/output/trigger_spec.h"

namespace usdt::record {

// A trigger that fired, and the event that fired it.
struct TriggerHit {
  size_t trigger = 0;  // its index among the triggers
  uint32_t site = 0;
  uint64_t time_ns = 0;  // the event's (a latency trigger's end)
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t start_ns = 0;  // a latency trigger: the start's time; else time_ns
};

// Why a trigger cannot fire with these sites: the probe spec of it that
// matches none of them ("" when every one matches some site).
std::string unmatched_probe(const TriggerSpec& trigger,
                            const std::vector<format::ProbeSite>& sites);

class TriggerWatch {
 public:
  TriggerWatch(std::vector<TriggerSpec> triggers, const std::vector<format::ProbeSite>& sites);
  ~TriggerWatch();
  TriggerWatch(TriggerWatch&&) noexcept;
  TriggerWatch& operator=(TriggerWatch&&) noexcept;

  // Sites attached during the recording: matched against the triggers too.
  void add_sites(const std::vector<format::ProbeSite>& sites);
  // An event as drained; copied (its strings too) when a trigger looks at
  // its site.
  void take(const format::Event& event) {
    if (event.site_id < watched_.size() && watched_[event.site_id]) hold(event);
  }
  // The held events earlier than drained_through_ns, in time order,
  // through the triggers: the hits, in time order.
  std::vector<TriggerHit> advance(uint64_t drained_through_ns);

  const std::vector<TriggerSpec>& triggers() const { return triggers_; }
  // Triggers none of whose probes matched a site (said once, at the start).
  std::vector<std::string> unmatched() const;
  size_t held() const;

 private:
  struct Held;
  struct Latency;
  void hold(const format::Event& event);
  void match_site(const format::ProbeSite& site);
  std::optional<TriggerHit> on_event(size_t trigger, const format::Event& e);

  std::vector<TriggerSpec> triggers_;
  std::vector<format::ProbeSite> sites_;
  std::vector<uint8_t> watched_;                   // per site: some trigger names it
  std::vector<std::unique_ptr<Latency>> latency_;  // per trigger (null for probe triggers)
  // Per trigger, per site: its role (latency), or whether it matches (probe).
  std::vector<std::vector<uint8_t>> probe_sites_;
  std::vector<size_t> matched_sites_;  // per trigger
  std::vector<std::unique_ptr<Held>> held_;
};

}  // namespace usdt::record
