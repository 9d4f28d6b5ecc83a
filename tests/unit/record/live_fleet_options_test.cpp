// --flush-interval, --hostname (and USDT_HOSTNAME), --mount-ns-of: what
// parses, what is refused, which wins.
#include "record/live_fleet_options.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#include "record/record_options.h"

using namespace usdt::record;

namespace {

usdt::Result<RecordOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "usdt-record");
  for (const char* a : {"-e", "x:y", "-a"}) args.push_back(a);
  return parse_record_options(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("times of --flush-interval", "[live_fleet_options]") {
  CHECK(parse_milliseconds("250ms") == std::optional<uint64_t>(250));
  CHECK(parse_milliseconds("1s") == std::optional<uint64_t>(1000));
  CHECK(parse_milliseconds("1.5s") == std::optional<uint64_t>(1500));
  CHECK(parse_milliseconds("0.25") == std::optional<uint64_t>(250));
  CHECK(parse_milliseconds("2") == std::optional<uint64_t>(2000));
  CHECK(parse_milliseconds(".5") == std::optional<uint64_t>(500));
  for (const char* bad : {"", "ms", "s", "1.5ms", "1.0001", "-1", "1e3", "1 s", "x", "1..2"}) {
    INFO(bad);
    CHECK_FALSE(parse_milliseconds(bad));
  }
}

TEST_CASE("the options parse into the recording's, and bad values are misuse",
          "[live_fleet_options]") {
  unsetenv("USDT_HOSTNAME");
  auto o = parse({"--flush-interval", "250ms", "--hostname", "web-1", "--mount-ns-of", "42"});
  REQUIRE(o.ok());
  CHECK(o->live_fleet.flush_interval_ms == 250);
  CHECK(o->live_fleet.hostname == "web-1");
  CHECK(o->live_fleet.mount_ns_of == std::optional<pid_t>(42));
  auto d = parse({});
  REQUIRE(d.ok());
  CHECK(d->live_fleet.flush_interval_ms == kDefaultFlushIntervalMs);
  CHECK(d->live_fleet.hostname.empty());
  CHECK_FALSE(d->live_fleet.mount_ns_of);
  for (std::vector<const char*> bad :
       {std::vector<const char*>{"--flush-interval", "5ms"}, {"--flush-interval", "61s"},
        {"--flush-interval", "soon"}, {"--hostname", ""}, {"--hostname", "a b"},
        {"--mount-ns-of", "0"}, {"--mount-ns-of", "-3"}, {"--mount-ns-of", "12x"}}) {
    INFO(bad[0] << " " << bad[1]);
    CHECK_FALSE(parse(bad).ok());
  }
}

TEST_CASE("USDT_HOSTNAME labels the trace unless --hostname does", "[live_fleet_options]") {
  setenv("USDT_HOSTNAME", "pod-3", 1);
  auto env = parse({});
  REQUIRE(env.ok());
  CHECK(env->live_fleet.hostname == "pod-3");
  auto option = parse({"--hostname", "web-1"});
  REQUIRE(option.ok());
  CHECK(option->live_fleet.hostname == "web-1");
  setenv("USDT_HOSTNAME", "bad label", 1);
  auto bad = parse({});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("USDT_HOSTNAME") == 0);
  unsetenv("USDT_HOSTNAME");
}
