// Built without unwind tables but with debug information: only .debug_frame
// covers debug_frame_only's probe.
#include <sys/sdt.h>

#include "tests/unit/record/stacks/site_frame_sites.h"

namespace site_frame_sites {
namespace {
volatile long sink;
}

__attribute__((noinline)) void debug_frame_only(long x) {
  DTRACE_PROBE1(site_frame, debug_frame_only, x);
  sink = sink + x;
}

}  // namespace site_frame_sites
