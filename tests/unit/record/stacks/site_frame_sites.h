// Probe sites for site_frame_test, in files built with different flags
// (tests/unit/record/CMakeLists.txt): each fires site_frame:NAME.
#pragma once

namespace site_frame_sites {
// -O2 -fno-omit-frame-pointer: a leaf without a frame, and a function that
// has set up its frame at the probe.
void leaf(long x);
void framed(long x);
// -O2 -fomit-frame-pointer: the probe after push %rbx, %rbp untouched.
long pushed(long x);
// -O2 -fomit-frame-pointer: 8 KiB of locals below the return address.
long big_frame(long x);
// No .eh_frame, only .debug_frame (-fno-asynchronous-unwind-tables -g).
void debug_frame_only(long x);
// No CFI at all (-fno-asynchronous-unwind-tables -g0).
void no_cfi(long x);
}  // namespace site_frame_sites
