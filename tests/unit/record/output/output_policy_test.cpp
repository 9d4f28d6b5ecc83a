#include "record/output/output_policy.h"

#include <catch2/catch.hpp>

using namespace usdt::record;

TEST_CASE("sizes and durations", "[output_policy]") {
  CHECK(*parse_size("100M", "--max-size") == 100ull << 20);
  CHECK(*parse_size("512K", "--max-size") == 512ull << 10);
  CHECK(*parse_size("2GiB", "--max-size") == 2ull << 30);
  CHECK(*parse_size("4096", "--max-size") == 4096);
  for (const char* bad : {"", "0", "10m", "1.5M", "M", "-1M", "99999999999T"}) {
    INFO(bad);
    auto r = parse_size(bad, "--max-size");
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("--max-size takes a size") == 0);
  }
  CHECK(*parse_duration_ns("500ms", "--after") == 500000000u);
  CHECK(*parse_duration_ns("30s", "--after") == 30000000000u);
  CHECK(*parse_duration_ns("5m", "--after") == 300000000000u);
  CHECK(*parse_duration_ns("1h", "--after") == 3600000000000u);
  CHECK(*parse_duration_ns("0s", "--after", true) == 0);
  CHECK_FALSE(parse_duration_ns("0s", "--after"));
  CHECK_FALSE(parse_duration_ns("30", "--after"));
  CHECK_FALSE(parse_duration_ns("5M", "--after"));
}

TEST_CASE("--switch-output and --flight-recorder tell sizes from times", "[output_policy]") {
  CHECK(parse_switch_output("signal")->kind == SwitchKind::signal);
  auto size = parse_switch_output("100M");
  CHECK(size->kind == SwitchKind::size);
  CHECK(size->bytes == 100ull << 20);
  auto time = parse_switch_output("10m");
  CHECK(time->kind == SwitchKind::time);
  CHECK(time->ns == 600000000000u);
  CHECK_FALSE(parse_switch_output("sometimes"));
  auto ring = parse_flight_recorder("64M");
  CHECK(ring->bytes == 64ull << 20);
  CHECK(ring->ns == 0);
  auto age = parse_flight_recorder("30s");
  CHECK(age->ns == 30000000000u);
  CHECK(age->bytes == kDefaultFlightRecorderCap);
}

TEST_CASE("--control and --max-snapshots", "[output_policy]") {
  auto c = parse_control("fifo:/run/ctl,/run/ack");
  REQUIRE(c);
  CHECK(c->path == "/run/ctl");
  CHECK(c->ack_path == "/run/ack");
  CHECK(parse_control("fifo:/run/ctl")->ack_path.empty());
  CHECK_FALSE(parse_control("/run/ctl"));
  CHECK_FALSE(parse_control("fifo:"));
  CHECK_FALSE(parse_control("fifo:/a,"));
  OutputPolicy p;
  REQUIRE(parse_max_snapshots("3/10", p));
  CHECK(p.max_snapshots == 3);
  CHECK(p.snapshot_period_ns == 600000000000u);
  REQUIRE(parse_max_snapshots("2", p));
  CHECK(p.snapshot_period_ns == 60000000000u);
  CHECK_FALSE(parse_max_snapshots("0/1", p));
  CHECK_FALSE(parse_max_snapshots("1/0", p));
  CHECK_FALSE(parse_max_snapshots("x", p));
}

TEST_CASE("the output options combine only where they mean something", "[output_policy]") {
  OutputPolicy p;
  CHECK(check_output_policy(p, false));
  p.max_size = 1 << 20;
  p.switch_output.kind = SwitchKind::size;
  CHECK_FALSE(check_output_policy(p, false));
  p = OutputPolicy();
  p.max_files = 3;
  CHECK_FALSE(check_output_policy(p, false));
  p.switch_output.kind = SwitchKind::signal;
  CHECK(check_output_policy(p, false));
  CHECK_FALSE(check_output_policy(p, true));  // -g
  p = OutputPolicy();
  p.triggers.emplace_back();
  CHECK_FALSE(check_output_policy(p, false));
  p.flight.enabled = true;
  CHECK(check_output_policy(p, false));
  p.flight.enabled = false;
  p.switch_output.kind = SwitchKind::time;
  p.triggers.clear();
  p.after_ns = 1;
  CHECK_FALSE(check_output_policy(p, false));
}
