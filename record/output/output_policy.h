// Where a recording's trace goes and how much of it is kept (docs/CLI.md,
// "Recording in production"): one file, perhaps capped (--max-size); a
// series of complete files (--switch-output, --max-files); or a flight
// recorder that keeps the recent past in memory and writes snapshots of it
// on request (--flight-recorder, SIGUSR2, --control) or when a trigger fires
// (--snapshot-on, --before, --after, --max-snapshots). Parsed here from the
// option texts; record_options.cpp checks how they combine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/output/trigger_spec.h"

namespace usdt::record {

enum class SwitchKind : uint8_t { none, size, time, signal };

// --switch-output=SIZE|TIME|signal
struct SwitchOutput {
  SwitchKind kind = SwitchKind::none;
  uint64_t bytes = 0;  // size
  uint64_t ns = 0;     // time
};

// --flight-recorder SIZE|DURATION: the ring keeps at most `bytes` of
// compressed chunks; with a duration, the chunks of the last `ns` (and at
// most kDefaultFlightRecorderCap bytes all the same).
struct FlightRecorder {
  bool enabled = false;
  uint64_t bytes = 0;
  uint64_t ns = 0;            // 0: by size only
  bool exit_snapshot = true;  // --no-exit-snapshot clears it
};

// The memory a flight recorder kept by duration may take at most.
constexpr uint64_t kDefaultFlightRecorderCap = 1ull << 30;

// --control fifo:PATH[,ACK]: commands on PATH ("snapshot"); "ack" written
// to ACK once one is done (perf record's --control).
struct ControlSpec {
  std::string path;
  std::string ack_path;
};

struct OutputPolicy {
  uint64_t max_size = 0;  // --max-size; 0: no limit
  SwitchOutput switch_output;
  uint32_t max_files = 0;  // --max-files; 0: keep every part or snapshot
  FlightRecorder flight;
  std::optional<ControlSpec> control;
  std::vector<TriggerSpec> triggers;  // --snapshot-on
  // The window around a trigger: --before (nullopt: all the ring holds)
  // and --after.
  std::optional<uint64_t> before_ns;
  uint64_t after_ns = 0;
  // --max-snapshots N/MINUTES: at most N trigger snapshots in any window
  // of that length.
  uint32_t max_snapshots = 1;
  uint64_t snapshot_period_ns = 60ull * 1000000000u;

  bool series() const { return switch_output.kind != SwitchKind::none; }
  bool single_file() const { return !series() && !flight.enabled; }
};

// "100M", "64K", "1G", "4096", "2MB", "2MiB": bytes (K, M, G, T: powers of
// 1024). Fails on anything else, on 0 and on overflow.
Result<uint64_t> parse_size(const std::string& text, const char* option);
// "500ms", "30s", "5m", "2h", "1d", "250us": nanoseconds. A bare number is
// refused (seconds or bytes?). Fails on 0 unless zero_ok.
Result<uint64_t> parse_duration_ns(const std::string& text, const char* option,
                                   bool zero_ok = false);
// --switch-output: "signal", a size or a time.
Result<SwitchOutput> parse_switch_output(const std::string& text);
// --flight-recorder: a size or a duration.
Result<FlightRecorder> parse_flight_recorder(const std::string& text);
// --control: "fifo:PATH" or "fifo:PATH,ACK".
Result<ControlSpec> parse_control(const std::string& text);
// --max-snapshots "N/MINUTES" or "N" (per minute).
Status parse_max_snapshots(const std::string& text, OutputPolicy& policy);

// Checks how the options combine (a usage error when they do not).
Status check_output_policy(const OutputPolicy& policy, bool call_graph);

}  // namespace usdt::record
