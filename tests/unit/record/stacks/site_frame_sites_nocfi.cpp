// Built without unwind tables and without debug information: no CFI covers
// no_cfi's probe (neither .eh_frame nor .debug_frame).
#include <sys/sdt.h>

#include "tests/unit/record/stacks/site_frame_sites.h"

namespace site_frame_sites {
namespace {
volatile long sink;
}

__attribute__((noinline)) void no_cfi(long x) {
  DTRACE_PROBE1(site_frame, no_cfi, x);
  sink = sink + x;
}

}  // namespace site_frame_sites
