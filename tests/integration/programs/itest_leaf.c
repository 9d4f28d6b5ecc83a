/* Probes where no frame is set up, for -g fp (stacks_test.cpp):
 *   itest_leaf [N [M [K]]]
 *   main -> a -> b -> leaf:hit(1)           N times (default 5)
 *   main -> c -> b -> leaf:hit(2)           M times (default 3)
 *   main -> d -> pushed -> leaf:pushed(i)   K times (default 4)
 *   main -> d -> framed -> touch            K times
 *   the entries of a, b, sum and framed: function-entry uprobes
 * Built at -O2 with -fno-omit-frame-pointer, as distributions build for
 * frame pointers, but without -mno-omit-leaf-frame-pointer: b is a leaf,
 * and GCC sets up no frame in it, so at its probe %rbp is still a's frame
 * (its CFI says CFA = %rsp+8: the test checks it with -l -v). a, c and d
 * keep their frames (the empty asm after each call: no tail calls).
 * b's first instruction is its probe's nop; a's and framed's are push %rbp
 * (the kernel takes it for an entry itself); sum, a leaf without a probe,
 * starts with neither. pushed (itest_leaf_pushed.c, -fomit-frame-pointer) saves %rbx
 * before its probe: CFA = %rsp+16 there, the return address at 8(%rsp). */
#include <stdlib.h>
#include <sys/sdt.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static volatile long sink;

long pushed(long i);

__attribute__((noinline)) long sum(long x, long y) { return x * 3 + y; }

__attribute__((noinline)) void b(long path) {
  DTRACE_PROBE1(leaf, hit, path);
  sink += path;
}

__attribute__((noinline)) void a(void) {
  b(1);
  sink += sum(sink, 1);
  KEEP_FRAME();
}

__attribute__((noinline)) void c(void) {
  b(2);
  sink += sum(sink, 2);
  KEEP_FRAME();
}

__attribute__((noinline)) void touch(long x) { sink += x; }

__attribute__((noinline)) void framed(long x) {
  touch(x);
  KEEP_FRAME();
}

__attribute__((noinline)) void d(long i) {
  sink += pushed(i);
  framed(i);
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 5;
  long m = argc > 2 ? atol(argv[2]) : 3;
  long k = argc > 3 ? atol(argv[3]) : 4;
  for (long i = 0; i < n; ++i) a();
  for (long i = 0; i < m; ++i) c();
  for (long i = 0; i < k; ++i) d(i);
  KEEP_FRAME();
  return 0;
}
