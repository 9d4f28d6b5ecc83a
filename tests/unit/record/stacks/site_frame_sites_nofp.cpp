#include <sys/sdt.h>

#include "tests/unit/record/stacks/site_frame_sites.h"

namespace site_frame_sites {
namespace {
volatile long sink;
}

// noipa: else GCC sees which registers twice() leaves alone and keeps the
// value in one of those instead of pushing %rbx.
__attribute__((noipa)) static long twice(long x) {
  sink = sink + x;
  return 2 * x;
}

__attribute__((noipa)) long pushed(long x) {
  long kept = x * 7 + sink;
  long t = twice(x);
  DTRACE_PROBE1(site_frame, pushed, kept);
  return kept + t;
}

__attribute__((noipa)) long big_frame(long x) {
  volatile char buf[8192];
  buf[x & 8191] = 1;
  DTRACE_PROBE1(site_frame, big_frame, x);
  return buf[0];
}

}  // namespace site_frame_sites
