/* Every operand form compilers write for <sys/sdt.h> probes, built every way
 * (tests/integration/CMakeLists.txt: GCC and clang, -O0 and -O2, PIE,
 * non-PIE, -fno-pic, -static, -static-pie, shared objects), so that each form
 * is recorded for real: operands_test.cpp checks each argument is exactly what
 * the program passed, or null where the form is documented as missing.
 *
 * Usage: itest_operands [ITERATIONS]  (ITERATIONS defaults to 1)
 * At start it prints "ho_recs+32=0xADDRESS". Each probe fires once per
 * iteration i = 0 .. ITERATIONS-1, in the order below, with k = i % 16.
 * itest_operands_fill(i) has written, for every element j (0..15):
 *   ho_recs[j].a = -100000 j - i - 1     ho_recs[j].b = -100 j - i % 100 - 1
 *   ho_recs[j].c = -4 j - i % 4 - 1      ho_recs[j].d = 0xd000000000000000 + (j << 32) + i
 *   st_recs[j].a = 7000000 + 1000 j + i  st_recs[j].d = 0x5000000000000000 + (j << 24) + i
 *   gvals[j] = -(j << 40) - i - 1        (int64)
 *   heap[j].a = -3000 j - i - 1          heap[j].b = -50 j - i % 50 - 1
 *   heap[j].d = 0x4000000000000000 + (j << 32) + i     harr[j] = 5000 j + i
 *   g32 = 123456 + i    gd = i + 0.5 (double)    tls_val = i (thread-local)
 * Thread-local operands are null: no sample and no fetch-arg reaches %fs.
 * so that any element but k, or any earlier iteration, gives other values.
 *
 * Probes through <sys/sdt.h> (the "nor" constraints: the compiler chooses):
 *   ops:aos      ho_recs[k].a ho_recs[k].b ho_recs[k].c ho_recs[k].d
 *                (GCC -O2 non-PIE: -4@ho_recs(%rax) -2@ho_recs+4(%rax) ...;
 *                PIE: -4@(%rcx,%rax) ...; clang: stack slots)
 *   ops:statics  st_recs[k].a st_recs[k].d   (a static array)
 *   ops:idx      gvals[k] k                  (GCC -O2 non-PIE: -8@gvals(,%rdi,8))
 *   ops:heap     heap[k].a heap[k].d harr[k] (-4@(%rsi,%rax) ...)
 *   ops:glob     g32 ho_recs[3].b gd         (-4@g32(%rip) -2@ho_recs+52(%rip) 8f@gd(%rip))
 *   ops:tls      tls_val tls_here            (-8@%fs:(%rax) -8@%fs:tls_here@tpoff at -O2)
 *   ops:consts   -5 7 (int8_t)k              (-4@$-5 -4@$7 -1@%dil)
 * Probes whose operands the compiler prints from "m" and "x" constraints
 * (itest_note.h), the forms clang writes for memory:
 *   mem:aos   -4@ho_recs[k].a -2@ho_recs[k].b 8@ho_recs[k].d  (ho_recs+4(%rax) non-PIE)
 *   mem:idx   -8@gvals[k]                 (gvals(,%rdi,8) non-PIE, (%rdx,%rdi,8) PIE)
 *   mem:glob  8@ho_recs[2].d              (ho_recs+40(%rip))
 *   mem:heap  -2@heap[k].b                (4(%rax,%rsi))
 *   mem:tls   -8@tls_val                  (%fs:(%rax))
 *   mem:xmm   8f@(i + 0.25) in %xmmN
 * Hand-written operands, with %rax = 16 k and %rdx = &heap[k]:
 *   hand:forms  -4@ho_recs(,%rax,1) -2@ho_recs+20 8@%ds:8(%rdx) 8@$ho_recs+32
 *     ho_recs[k].a, ho_recs[1].b (a bare symbol), heap[k].d (a flat segment),
 *     the address printed at start (a symbol's address as a constant)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "itest_note.h"
#include "itest_operands_data.h"

static struct rec st_recs[ITEST_RECS];
struct rec* itest_static_recs = st_recs;
/* Thread-local and defined here: GCC addresses it as %fs:tls_here@tpoff
 * where it can (never written, it is 0: its probe argument is null anyway). */
__thread int64_t tls_here;

static void __attribute__((noinline)) fire_sdt(long k, struct rec* heap, int32_t* harr) {
  DTRACE_PROBE4(ops, aos, ho_recs[k].a, ho_recs[k].b, ho_recs[k].c, ho_recs[k].d);
  DTRACE_PROBE2(ops, statics, st_recs[k].a, st_recs[k].d);
  DTRACE_PROBE2(ops, idx, gvals[k], k);
  DTRACE_PROBE3(ops, heap, heap[k].a, heap[k].d, harr[k]);
  DTRACE_PROBE3(ops, glob, g32, ho_recs[3].b, gd);
  DTRACE_PROBE2(ops, tls, tls_val, tls_here);
  DTRACE_PROBE3(ops, consts, -5, 7, (int8_t)k);
}

static void __attribute__((noinline)) fire_mem(long k, struct rec* heap, double x) {
  __asm__ __volatile__(ITEST_NOTE(mem, aos, "-4@%0 -2@%1 8@%2")
                       :
                       : "m"(ho_recs[k].a), "m"(ho_recs[k].b), "m"(ho_recs[k].d));
  __asm__ __volatile__(ITEST_NOTE(mem, idx, "-8@%0") : : "m"(gvals[k]));
  __asm__ __volatile__(ITEST_NOTE(mem, glob, "8@%0") : : "m"(ho_recs[2].d));
  __asm__ __volatile__(ITEST_NOTE(mem, heap, "-2@%0") : : "m"(heap[k].b));
  __asm__ __volatile__(ITEST_NOTE(mem, tls, "-8@%0") : : "m"(tls_val));
  __asm__ __volatile__(ITEST_NOTE(mem, xmm, "8f@%0") : : "x"(x));
}

static void __attribute__((noinline)) fire_hand(long k, struct rec* heap) {
  register long rax __asm__("rax") = k * (long)sizeof(struct rec);
  register struct rec* rdx __asm__("rdx") = &heap[k];
  __asm__ __volatile__(
      ITEST_NOTE(hand, forms, "-4@ho_recs(,%%rax,1) -2@ho_recs+20 8@%%ds:8(%%rdx) 8@$ho_recs+32")
      :
      : "r"(rax), "r"(rdx)
      : "memory");
}

int itest_operands_main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  struct rec* heap = calloc(ITEST_RECS, sizeof *heap);
  int32_t* harr = calloc(ITEST_RECS, sizeof *harr);
  if (heap == NULL || harr == NULL) return 1;
  itest_operands_print_address();
  for (long i = 0; i < n; ++i) {
    const long k = i % ITEST_RECS;
    itest_operands_fill(i, heap, harr);
    fire_sdt(k, heap, harr);
    fire_mem(k, heap, (double)i + 0.25);
    fire_hand(k, heap);
  }
  free(heap);
  free(harr);
  return 0;
}
