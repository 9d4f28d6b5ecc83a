/* Part of itest_deepstack, built at -O0: GCC addresses locals through %rbp,
 * and a 20 KiB array puts the probe's operands about 20 KiB below %rbp. The
 * expected values are in itest_deepstack.c's opening comment (deep:rbp20k). */
#include <stdint.h>
#include <stdio.h>
#include <sys/sdt.h>

extern int itest_deepstack_print;
void itest_deepstack_o0(long i);

void itest_deepstack_o0(long i) {
  /* With -fstack-protector-strong (set for this file in CMakeLists.txt),
   * GCC 12 at -O0 puts arrays next to the guard and scalars below them: far,
   * small and the spilled i end up about 20 KiB below %rbp, under pad[]. */
  int64_t pad[2500];
  int64_t far = -(i * 1000) - 7;
  int32_t small = (int32_t)(i * 3) - 5000;
  pad[0] = i;
  STAP_PROBE3(deep, rbp20k, far, small, i);
  if (itest_deepstack_print) {
    printf("deep:rbp20k i=%ld arg0=%lld arg1=%d arg2=%ld\n", i, (long long)far, small, i);
  }
  __asm__ __volatile__("" : : "r"(pad) : "memory");
}
