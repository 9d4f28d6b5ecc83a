#include <sys/sdt.h>

#include "tests/unit/record/stacks/site_frame_sites.h"

namespace site_frame_sites {
namespace {
volatile long sink;
}

__attribute__((noinline)) void leaf(long x) {
  DTRACE_PROBE1(site_frame, leaf, x);
  sink = sink + x;
}

__attribute__((noipa)) static void callee(long x) { sink = sink + x; }

__attribute__((noinline)) void framed(long x) {
  callee(x);
  DTRACE_PROBE1(site_frame, framed, x);
  callee(x);
}

}  // namespace site_frame_sites
