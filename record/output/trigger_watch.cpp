#include "record/output/trigger_watch.h"

#include <algorithm>

namespace usdt::record {
namespace {

using pairing::SiteRole;

bool is_function_probe(const format::ProbeSite& site) {
  return site.kind == format::ProbeKind::uprobe || site.kind == format::ProbeKind::uretprobe;
}

bool has_frame(const format::ProbeSite& site) {
  return !site.args.empty() && site.args.back().is_frame;
}

// The index of an argument at a site (argN, or by name), -1 when it has none.
int arg_index(const TriggerArg& arg, const format::ProbeSite& site) {
  const size_t count = site.args.size() - (has_frame(site) ? 1 : 0);
  if (arg.index >= 0) return static_cast<size_t>(arg.index) < count ? arg.index : -1;
  for (size_t i = 0; i < count; ++i) {
    if (site.args[i].name == arg.name) return static_cast<int>(i);
  }
  return -1;
}

bool matches_any(const ProbeSpec& spec, const std::vector<format::ProbeSite>& sites) {
  for (const format::ProbeSite& site : sites) {
    if (spec.matches(site.path, site.provider, site.name)) return true;
  }
  return false;
}

}  // namespace

std::string unmatched_probe(const TriggerSpec& trigger,
                            const std::vector<format::ProbeSite>& sites) {
  if (trigger.kind == TriggerSpec::Kind::probe) {
    return matches_any(trigger.probe, sites) ? "" : trigger.probe.text;
  }
  if (!matches_any(trigger.start, sites)) return trigger.start.text;
  return matches_any(trigger.end, sites) ? "" : trigger.end.text;
}

// An event held until its time is complete, with its own copy of its strings.
struct TriggerWatch::Held {
  format::Event event;
  std::vector<std::string> bytes;
  std::vector<format::StringArg> strings;
};

// A latency trigger's pairing and its sites' file classes.
struct TriggerWatch::Latency {
  explicit Latency(pairing::PairingRules rules) : matcher(std::move(rules)) {}
  pairing::PairMatcher matcher;
  std::vector<std::string> class_paths;  // class - 1 -> file, for sites added later
};

TriggerWatch::TriggerWatch(std::vector<TriggerSpec> triggers,
                           const std::vector<format::ProbeSite>& sites)
    : triggers_(std::move(triggers)),
      probe_sites_(triggers_.size()),
      matched_sites_(triggers_.size(), 0) {
  for (size_t t = 0; t < triggers_.size(); ++t) {
    const TriggerSpec& spec = triggers_[t];
    if (spec.kind != TriggerSpec::Kind::latency) {
      latency_.push_back(nullptr);
      continue;
    }
    // The rules of `usdt-report latency`: roles, the key, a class per file
    // when every start and end is a function probe.
    pairing::PairingRules rules;
    rules.key = spec.key == TriggerSpec::Key::tid   ? pairing::KeyKind::tid
                : spec.key == TriggerSpec::Key::pid ? pairing::KeyKind::pid
                                                    : pairing::KeyKind::arg;
    std::vector<std::string> paths;
    for (const format::ProbeSite& site : sites) {
      SiteRole role = spec.start.matches(site.path, site.provider, site.name) ? SiteRole::start
                      : spec.end.matches(site.path, site.provider, site.name) ? SiteRole::end
                                                                              : SiteRole::none;
      rules.roles.push_back(role);
      rules.key_arg.push_back(role != SiteRole::none && rules.key == pairing::KeyKind::arg
                                  ? arg_index(spec.key_arg, site)
                                  : -1);
      paths.push_back(is_function_probe(site) ? site.path : std::string());
    }
    rules.pair_class = pairing::pair_classes_by_file(rules.roles, paths);
    auto latency = std::make_unique<Latency>(rules);
    if (!rules.pair_class.empty()) {
      for (size_t s = 0; s < sites.size(); ++s) {
        const uint16_t c = rules.pair_class[s];
        if (c == 0) continue;
        if (latency->class_paths.size() < c) latency->class_paths.resize(c);
        latency->class_paths[c - 1] = paths[s];
      }
    }
    latency_.push_back(std::move(latency));
  }
  for (const format::ProbeSite& site : sites) match_site(site);
}

TriggerWatch::~TriggerWatch() = default;
TriggerWatch::TriggerWatch(TriggerWatch&&) noexcept = default;
TriggerWatch& TriggerWatch::operator=(TriggerWatch&&) noexcept = default;

// Records what each trigger makes of the site (its latency matcher already
// has it for the sites given at construction).
void TriggerWatch::match_site(const format::ProbeSite& site) {
  sites_.push_back(site);
  bool watched = false;
  for (size_t t = 0; t < triggers_.size(); ++t) {
    const TriggerSpec& spec = triggers_[t];
    uint8_t role = 0;
    if (spec.kind == TriggerSpec::Kind::probe) {
      role = spec.probe.matches(site.path, site.provider, site.name) ? 1 : 0;
    } else if (spec.start.matches(site.path, site.provider, site.name)) {
      role = static_cast<uint8_t>(SiteRole::start);
    } else if (spec.end.matches(site.path, site.provider, site.name)) {
      role = static_cast<uint8_t>(SiteRole::end);
    }
    probe_sites_[t].push_back(role);
    if (role != 0) {
      watched = true;
      ++matched_sites_[t];
    }
  }
  watched_.push_back(watched ? 1 : 0);
}

void TriggerWatch::add_sites(const std::vector<format::ProbeSite>& sites) {
  for (const format::ProbeSite& site : sites) {
    match_site(site);
    for (size_t t = 0; t < triggers_.size(); ++t) {
      Latency* latency = latency_[t].get();
      if (latency == nullptr) continue;
      const TriggerSpec& spec = triggers_[t];
      const auto role = static_cast<SiteRole>(probe_sites_[t].back());
      // A function probe in a file of its own gets a class of its own.
      uint16_t cls = 0;
      if (role != SiteRole::none && is_function_probe(site) && !latency->class_paths.empty()) {
        auto it = std::find(latency->class_paths.begin(), latency->class_paths.end(), site.path);
        if (it == latency->class_paths.end()) {
          latency->class_paths.push_back(site.path);
          it = latency->class_paths.end() - 1;
        }
        cls = static_cast<uint16_t>(it - latency->class_paths.begin() + 1);
      }
      const int key = role != SiteRole::none && spec.key == TriggerSpec::Key::arg
                          ? arg_index(spec.key_arg, site)
                          : -1;
      latency->matcher.add_site(role, cls, key);
    }
  }
}

void TriggerWatch::hold(const format::Event& event) {
  auto h = std::make_unique<Held>();
  h->event = event;
  format::Event& e = h->event;
  // The frame of a function probe is its last argument here; the pairing
  // takes it apart, as a reader of the trace does.
  const format::ProbeSite& site = sites_[e.site_id];
  if (has_frame(site) && e.arg_count == site.args.size()) {
    const int last = e.arg_count - 1;
    e.frame = e.has_arg(last) ? e.args[last] : 0;
    e.arg_count = static_cast<uint8_t>(last);
    e.missing_mask &= static_cast<uint16_t>((1u << last) - 1);
    e.string_mask &= static_cast<uint16_t>((1u << last) - 1);
  }
  if (e.string_mask != 0) {
    h->bytes.resize(e.arg_count);
    h->strings.resize(e.arg_count);
    for (int i = 0; i < e.arg_count; ++i) {
      if (!e.is_string(i) || !e.has_arg(i)) continue;
      const format::StringArg& s = e.string_arg(i);
      h->bytes[i].assign(s.bytes);
      h->strings[i] = format::StringArg{h->bytes[i], s.truncated};
      e.args[i] = reinterpret_cast<uint64_t>(&h->strings[i]);
    }
  }
  e.stack = nullptr;
  e.stack_depth = 0;
  held_.push_back(std::move(h));
}

std::vector<TriggerHit> TriggerWatch::advance(uint64_t drained_through_ns) {
  std::vector<TriggerHit> hits;
  auto ripe_end = std::stable_partition(held_.begin(), held_.end(), [&](const auto& h) {
    return h->event.time_ns < drained_through_ns;
  });
  std::stable_sort(held_.begin(), ripe_end, [](const auto& a, const auto& b) {
    return a->event.time_ns < b->event.time_ns;
  });
  for (auto it = held_.begin(); it != ripe_end; ++it) {
    for (size_t t = 0; t < triggers_.size(); ++t) {
      if (std::optional<TriggerHit> hit = on_event(t, (*it)->event)) hits.push_back(*hit);
    }
  }
  held_.erase(held_.begin(), ripe_end);
  return hits;
}

std::optional<TriggerHit> TriggerWatch::on_event(size_t t, const format::Event& e) {
  if (probe_sites_[t][e.site_id] == 0) return std::nullopt;
  const TriggerSpec& spec = triggers_[t];
  TriggerHit hit{t, e.site_id, e.time_ns, e.pid, e.tid, e.time_ns};
  if (spec.kind == TriggerSpec::Kind::latency) {
    pairing::PairMatcher& m = latency_[t]->matcher;
    if (m.on_event(e.site_id, 0, e, e.time_ns) != pairing::PairMatcher::Outcome::paired) {
      return std::nullopt;
    }
    hit.start_ns = m.node(m.last_node()).time;
    const uint64_t duration = e.time_ns >= hit.start_ns ? e.time_ns - hit.start_ns : 0;
    const bool fires = spec.or_equal ? duration >= spec.threshold_ns : duration > spec.threshold_ns;
    return fires ? std::optional<TriggerHit>(hit) : std::nullopt;
  }
  if (!spec.condition) return hit;
  const TriggerCondition& c = *spec.condition;
  const format::ProbeSite& site = sites_[e.site_id];
  const int i = arg_index(c.arg, site);
  if (i < 0 || !e.has_arg(i)) return std::nullopt;
  if (e.is_string(i)) {
    if (!c.is_string) return std::nullopt;
    const bool equal = e.string_arg(i).bytes == c.text;
    return (c.op == CompareOp::eq) == equal ? std::optional<TriggerHit>(hit) : std::nullopt;
  }
  if (c.is_string) return std::nullopt;
  return compare_number(c, e.args[i], site.args[static_cast<size_t>(i)].is_signed)
             ? std::optional<TriggerHit>(hit)
             : std::nullopt;
}

std::vector<std::string> TriggerWatch::unmatched() const {
  std::vector<std::string> out;
  for (size_t t = 0; t < triggers_.size(); ++t) {
    if (matched_sites_[t] == 0) out.push_back(triggers_[t].text);
  }
  return out;
}

size_t TriggerWatch::held() const { return held_.size(); }

}  // namespace usdt::record
