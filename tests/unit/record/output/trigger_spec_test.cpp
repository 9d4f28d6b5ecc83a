#include "record/output/trigger_spec.h"

#include <catch2/catch.hpp>

using namespace usdt::record;

TEST_CASE("a latency trigger: probes, threshold, key", "[trigger_spec]") {
  auto t = parse_trigger("latency postgresql:query__start postgresql:query__done > 500ms");
  REQUIRE(t);
  CHECK(t->kind == TriggerSpec::Kind::latency);
  CHECK(t->start.provider == "postgresql");
  CHECK(t->start.name == "query__start");
  CHECK(t->end.name == "query__done");
  CHECK(t->threshold_ns == 500000000u);
  CHECK_FALSE(t->or_equal);
  CHECK(t->key == TriggerSpec::Key::tid);
  CHECK(t->text == "latency postgresql:query__start postgresql:query__done > 500ms");

  auto keyed = parse_trigger("latency app:req_start app:req_done >=2s --key arg1");
  REQUIRE(keyed);
  CHECK(keyed->or_equal);
  CHECK(keyed->threshold_ns == 2000000000u);
  CHECK(keyed->key == TriggerSpec::Key::arg);
  CHECK(keyed->key_arg.index == 1);

  auto named = parse_trigger("latency uprobe:./srv:handle uretprobe:./srv:handle > 1ms --key pid");
  REQUIRE(named);
  CHECK(named->key == TriggerSpec::Key::pid);
  auto by_name = parse_trigger("latency a:s a:e > 0ms --key request_id");
  REQUIRE(by_name);
  CHECK(by_name->key_arg.name == "request_id");
  CHECK(by_name->threshold_ns == 0);
}

TEST_CASE("a probe trigger, with and without a condition", "[trigger_spec]") {
  auto plain = parse_trigger("probe app:panic");
  REQUIRE(plain);
  CHECK(plain->kind == TriggerSpec::Kind::probe);
  CHECK(plain->probe.name == "panic");
  CHECK_FALSE(plain->condition);

  auto eq = parse_trigger("probe app:status if arg0 == 503");
  REQUIRE(eq);
  REQUIRE(eq->condition);
  CHECK(eq->condition->arg.index == 0);
  CHECK(eq->condition->op == CompareOp::eq);
  CHECK(eq->condition->value == 503);

  auto neg = parse_trigger("probe app:delta if arg2<-5");
  REQUIRE(neg);
  CHECK(neg->condition->op == CompareOp::lt);
  CHECK(neg->condition->is_negative);
  CHECK(neg->condition->value == static_cast<uint64_t>(-5));
  CHECK(compare_number(*neg->condition, static_cast<uint64_t>(-6), false));
  CHECK_FALSE(compare_number(*neg->condition, 3, false));

  auto hex = parse_trigger("probe app:flags if flags != 0x10");
  REQUIRE(hex);
  CHECK(hex->condition->arg.name == "flags");
  CHECK(hex->condition->value == 16);

  auto str = parse_trigger(R"(probe app:query if arg0 == "BEGIN \"x\"")");
  REQUIRE(str);
  CHECK(str->condition->is_string);
  CHECK(str->condition->text == "BEGIN \"x\"");
}

TEST_CASE("numbers compare unsigned unless signed", "[trigger_spec]") {
  auto t = parse_trigger("probe a:b if arg0 > 10");
  REQUIRE(t);
  const TriggerCondition& c = *t->condition;
  CHECK(compare_number(c, 11, false));
  CHECK_FALSE(compare_number(c, 10, false));
  // -1 is huge unsigned, small signed.
  CHECK(compare_number(c, static_cast<uint64_t>(-1), false));
  CHECK_FALSE(compare_number(c, static_cast<uint64_t>(-1), true));
  auto ge = parse_trigger("probe a:b if arg0 >= 10");
  CHECK(compare_number(*ge->condition, 10, false));
  auto le = parse_trigger("probe a:b if arg0 <= 10");
  CHECK(compare_number(*le->condition, 10, false));
  CHECK_FALSE(compare_number(*le->condition, 11, false));
}

TEST_CASE("bad triggers say what was expected", "[trigger_spec]") {
  for (const char* bad :
       {"", "latncy a:b c:d > 1s", "latency a:b c:d", "latency a:b c:d < 1s", "latency a:b c:d > 1",
        "latency a:b c:d > 1s --key", "latency a:b c:d > 1s --by arg0",
        "latency a:b c:d > 1s --key arg12", "probe", "probe a:b if",
        "probe a:b if arg0 ==", "probe a:b if arg0 > \"x\"", "probe a:b if arg0 = 1",
        "probe a:b if arg0 == 1 2", "probe a:b if 0arg == 1", "probe a:b if arg0 == \"open",
        "probe a:b when arg0 == 1", "probe a:b if arg0 == 99999999999999999999"}) {
    INFO(bad);
    auto t = parse_trigger(bad);
    REQUIRE_FALSE(t);
    CHECK(t.error().message().find("--snapshot-on") != std::string::npos);
  }
}
