// The synthetic workload of the format's size and speed targets:
// one USDT probe with two integer arguments fired in a tight loop by one
// thread. Times advance by 700-1000 ns with jitter, the CPU rarely changes,
// arg0 counts up, arg1 is a small varying value.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::format::bench {

inline std::vector<ProbeSite> synthetic_sites() {
  ProbeSite s;
  s.id = 0;
  s.kind = ProbeKind::usdt;
  s.path = "/usr/local/bin/loop";
  s.provider = "loop";
  s.name = "tick";
  s.file_offset = 0x1139;
  ArgDescriptor a0{"8@%rax", 8, false, false, ArgLocation::reg, ArgSource::sampled_register};
  ArgDescriptor a1{"-4@%edx", 4, true, false, ArgLocation::reg, ArgSource::sampled_register};
  s.args = {a0, a1};
  return {s};
}

inline TraceMetadata synthetic_metadata() {
  TraceMetadata m;
  m.hostname = "bench";
  m.kernel_release = "6.18";
  m.arch = "x86_64";
  m.page_size = 4096;
  m.command_line = "usdt-record -- ./loop";
  m.recorder_version = "bench";
  m.start_monotonic_ns = 1'000'000'000;
  m.start_realtime_ns = 1'700'000'000'000'000'000;
  return m;
}

class SyntheticStream {
 public:
  explicit SyntheticStream(uint64_t seed = 42) : rng_(seed) {
    event_.time_ns = 1'000'000'000;
    event_.pid = 4242;
    event_.tid = 4242;
    event_.cpu = 1;
    event_.site_id = 0;
    event_.arg_count = 2;
  }
  const Event& next() {
    uint64_t r = rng_();
    event_.time_ns += 700 + r % 301;
    if ((r >> 20) % 10000 == 0) event_.cpu ^= 1;  // an occasional migration
    event_.args[0] = counter_++;
    event_.args[1] = (r >> 32) % 100;
    return event_;
  }

 private:
  std::mt19937_64 rng_;
  Event event_;
  uint64_t counter_ = 0;
};

}  // namespace usdt::format::bench
