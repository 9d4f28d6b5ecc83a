/* itest_leaf's function whose probe comes after a push but no frame setup
 * (built with -fomit-frame-pointer): it keeps a value in %rbx across a call,
 * so it saves %rbx first; %rbp it leaves alone (still d's frame). noipa:
 * GCC would otherwise see that twice keeps the value's register. */
#include <sys/sdt.h>

static volatile long pushed_sink;

__attribute__((noipa)) long twice(long x) {
  pushed_sink += x;
  return 2 * x;
}

__attribute__((noipa)) long pushed(long i) {
  long kept = i * 7 + pushed_sink;
  long t = twice(i);
  DTRACE_PROBE1(leaf, pushed, kept);
  return kept + t;
}
