/* Stack operands far from the stack pointer.
 *
 * Usage: itest_deepstack [ITERATIONS [print]]  (ITERATIONS defaults to 1)
 * Each probe fires once per iteration i = 0 .. ITERATIONS-1, in the order
 * below. With "print", one line per hit: deep:NAME i=I argN=VALUE ...
 *
 * This file is built at -O2; itest_deepstack_o0.c, at -O0, has the %rbp probe.
 * A local array big[3000] of uint64 lives at 0(%rsp) when the probes fire;
 * big[k] = 0xb000000000000000 + (i << 16) + k. Probes (readelf -n):
 *   deep:rsp4k    8@4200(%rsp) -8@%rbx
 *     arg0 uint64 big[525] (4200 bytes above %rsp) = 0xb000000000000000 + (i << 16) + 525
 *     arg1 = i
 *   deep:rsp16k   8@20000(%rsp) 8@16392(%rsp) -8@%rbx
 *     arg0 uint64 big[2500] (20000 bytes) = 0xb000000000000000 + (i << 16) + 2500
 *     arg1 uint64 big[2049] (16392 bytes) = 0xb000000000000000 + (i << 16) + 2049
 *     arg2 = i
 *   deep:rsp_near 8@8(%rsp) -8@%rbx
 *     arg0 uint64 big[1] = 0xb000000000000000 + (i << 16) + 1, arg1 = i
 *   deep:rbp20k   (itest_deepstack_o0.c, -O0 -fstack-protector-strong)
 *                 -8@-20024(%rbp) -4@-20028(%rbp) -8@-20040(%rbp)
 *     arg0 int64 at -20024(%rbp) = -(i * 1000) - 7
 *     arg1 int32 at -20028(%rbp) = (int32_t)(i * 3) - 5000
 *     arg2 int64 at -20040(%rbp) = i
 * The exact operand strings are GCC 12's; the integration tests should read
 * them from readelf -n rather than hard-code them where they can.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

int itest_deepstack_print;
void itest_deepstack_o0(long i);

/* Not inlined and not known to the optimizer: big[] must stay in memory. */
void __attribute__((noinline)) itest_fill(uint64_t* big, long n, long i) {
  for (long k = 0; k < n; ++k) big[k] = 0xb000000000000000ull + ((uint64_t)i << 16) + (uint64_t)k;
  __asm__ __volatile__("" : : "r"(big) : "memory");
}

static uint64_t value(long i, long k) {
  return 0xb000000000000000ull + ((uint64_t)i << 16) + (uint64_t)k;
}

static void __attribute__((noinline)) fire(long i) {
  uint64_t big[3000];
  itest_fill(big, 3000, i);
  STAP_PROBE2(deep, rsp4k, big[525], i);
  STAP_PROBE3(deep, rsp16k, big[2500], big[2049], i);
  STAP_PROBE2(deep, rsp_near, big[1], i);
  if (itest_deepstack_print) {
    printf("deep:rsp4k i=%ld arg0=%llu arg1=%ld\n", i, (unsigned long long)value(i, 525), i);
    printf("deep:rsp16k i=%ld arg0=%llu arg1=%llu arg2=%ld\n", i,
           (unsigned long long)value(i, 2500), (unsigned long long)value(i, 2049), i);
    printf("deep:rsp_near i=%ld arg0=%llu arg1=%ld\n", i, (unsigned long long)value(i, 1), i);
  }
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  itest_deepstack_print = argc > 2 && strcmp(argv[2], "print") == 0;
  for (long i = 0; i < n; ++i) {
    fire(i);
    itest_deepstack_o0(i);
  }
  return 0;
}
