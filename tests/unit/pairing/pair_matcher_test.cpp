#include "pairing/pair_matcher.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

using namespace usdt::pairing;
using usdt::format::Event;
using Outcome = PairMatcher::Outcome;

namespace {

constexpr uint32_t kStart = 0;
constexpr uint32_t kEnd = 1;
constexpr uint32_t kOther = 2;

PairingRules rules(KeyKind key = KeyKind::tid) {
  PairingRules r;
  r.key = key;
  r.roles = {SiteRole::start, SiteRole::end, SiteRole::none};
  if (key == KeyKind::arg) r.key_arg = {0, 0, -1};
  return r;
}

Event ev(uint32_t tid, uint64_t time, std::vector<std::optional<uint64_t>> args = {},
         uint64_t frame = 0) {
  Event e;
  e.pid = 100;
  e.tid = tid;
  e.time_ns = time;
  e.frame = frame;
  e.arg_count = static_cast<uint8_t>(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]) {
      e.args[i] = *args[i];
    } else {
      e.missing_mask |= static_cast<uint16_t>(1u << i);
    }
  }
  return e;
}

// The start time of the pair an end closes, or nullopt when it closes none.
std::optional<uint64_t> end_at(PairMatcher& m, uint32_t site, const Event& e) {
  if (m.on_event(site, 0, e, e.time_ns) != Outcome::paired) return std::nullopt;
  return m.node(m.last_node()).time;
}

}  // namespace

TEST_CASE("starts nest per thread: an end closes its thread's latest start", "[pairing]") {
  PairMatcher m(rules());
  CHECK(m.on_event(kStart, 0, ev(1, 10), 10) == Outcome::started);
  CHECK(m.on_event(kStart, 0, ev(2, 20), 20) == Outcome::started);
  CHECK(m.on_event(kStart, 0, ev(1, 30), 30) == Outcome::started);
  CHECK(m.on_event(kOther, 0, ev(1, 35), 35) == Outcome::ignored);
  CHECK(end_at(m, kEnd, ev(1, 40)) == 30u);
  CHECK(end_at(m, kEnd, ev(1, 50)) == 10u);
  CHECK(end_at(m, kEnd, ev(1, 60)) == std::nullopt);
  CHECK(m.unmatched_ends() == 1);
  CHECK(m.unmatched_starts() == 1);  // thread 2's
  CHECK(m.open_starts() == 1);
}

TEST_CASE("an argument key pairs across threads; a missing key is counted", "[pairing]") {
  PairMatcher m(rules(KeyKind::arg));
  CHECK(m.on_event(kStart, 0, ev(1, 10, {7}), 10) == Outcome::started);
  CHECK(m.on_event(kStart, 0, ev(1, 20, {8}), 20) == Outcome::started);
  CHECK(end_at(m, kEnd, ev(2, 30, {7})) == 10u);
  CHECK(m.last_key().value == 7);
  CHECK(m.on_event(kStart, 0, ev(1, 40, {std::nullopt}), 40) == Outcome::missing_key);
  CHECK(m.on_event(kEnd, 0, ev(1, 50, {}), 50) == Outcome::missing_key);
  CHECK(m.missing_key_starts() == 1);
  CHECK(m.missing_key_ends() == 1);
}

TEST_CASE("string keys pair by their bytes, a cut string apart from a whole one", "[pairing]") {
  PairMatcher m(rules(KeyKind::arg));
  usdt::format::StringArg whole{"req-1", false}, cut{"req-1", true};
  auto with = [](Event e, const usdt::format::StringArg& s) {
    e.string_mask = 1;
    e.args[0] = reinterpret_cast<uint64_t>(&s);
    return e;
  };
  CHECK(m.on_event(kStart, 0, with(ev(1, 10, {0}), whole), 10) == Outcome::started);
  CHECK(m.on_event(kEnd, 0, with(ev(1, 20, {0}), cut), 20) == Outcome::unmatched_end);
  CHECK(m.on_event(kEnd, 0, with(ev(1, 30, {0}), whole), 30) == Outcome::paired);
  CHECK(m.key_text() == std::string("\0req-1", 6));
}

TEST_CASE("a return drops the entries a longjmp abandoned below its frame", "[pairing]") {
  PairMatcher m(rules());
  CHECK(m.on_event(kStart, 0, ev(1, 10, {}, 0x1000), 10) == Outcome::started);
  CHECK(m.on_event(kStart, 0, ev(1, 20, {}, 0x0f00), 20) == Outcome::started);  // abandoned
  CHECK(end_at(m, kEnd, ev(1, 30, {}, 0x1008)) == 10u);
  CHECK(m.unmatched_starts() == 1);
  // A return of a call entered before the recording: below the open entry.
  CHECK(m.on_event(kStart, 0, ev(1, 40, {}, 0x1000), 40) == Outcome::started);
  CHECK(m.on_event(kEnd, 0, ev(1, 50, {}, 0x0f08), 50) == Outcome::unmatched_end);
}

TEST_CASE("classes keep a return in one file from closing an entry in another", "[pairing]") {
  PairingRules r;
  r.roles = {SiteRole::start, SiteRole::end, SiteRole::start, SiteRole::end};
  r.pair_class = {1, 1, 2, 2};
  PairMatcher m(r);
  CHECK(m.on_event(0, 0, ev(1, 10), 10) == Outcome::started);
  CHECK(m.on_event(3, 0, ev(1, 20), 20) == Outcome::unmatched_end);
  CHECK(m.on_event(1, 0, ev(1, 30), 30) == Outcome::paired);
}

TEST_CASE("a later segment's kept ends close the earlier segment's starts", "[pairing]") {
  PairMatcher first(rules()), whole(rules());
  PairingRules later_rules = rules();
  later_rules.later_segment = true;
  PairMatcher later(later_rules);
  const std::vector<std::pair<uint32_t, Event>> events = {
      {kStart, ev(1, 10)}, {kStart, ev(1, 20)}, {kEnd, ev(2, 25)}, {kEnd, ev(1, 30)},
      {kStart, ev(3, 35)}, {kEnd, ev(1, 40)},   {kEnd, ev(1, 45)}};
  for (size_t i = 0; i < events.size(); ++i) {
    PairMatcher& m = i < 3 ? first : later;
    m.on_event(events[i].first, 0, events[i].second, events[i].second.time_ns);
    whole.on_event(events[i].first, 0, events[i].second, events[i].second.time_ns);
  }
  REQUIRE(later.kept_ends().size() == 3);
  std::vector<std::optional<uint64_t>> closed;
  first.merge_kept_ends(later, [&](size_t, const PairMatcher::Node* n) {
    closed.push_back(n != nullptr ? std::optional<uint64_t>(n->time) : std::nullopt);
  });
  CHECK(closed == std::vector<std::optional<uint64_t>>{20u, 10u, std::nullopt});
  first.merge_open_starts(later);
  CHECK(first.unmatched_ends() == whole.unmatched_ends());
  CHECK(first.unmatched_starts() == whole.unmatched_starts());
  CHECK(first.open_starts() == 1);
}
