/* Known call paths for the call-stack tests (usdt-record -g):
 *   itest_stacks [N [M [LIB [K]]]]
 *   main -> a -> b -> stacks:hit(1)        N times (default 7)
 *   main -> c -> b -> stacks:hit(2)        M times (default 4)
 *   main -> sort_two -> qsort (libc) -> compare_ints -> stacks:compare
 *                                          at least once (a frame in libc)
 *   with LIB: dlopen(LIB), then main -> d -> fixture_lib_call (the
 *   library's fixturelib:call) K times (default 3)
 *   with LIB2 K2 as well: then dlclose(LIB) (it is unmapped), dlopen(LIB2)
 *   (mapped where LIB was, or over part of it) and K2 calls of its
 *   fixture_lib_call; prints "lib1 BASE" and "lib2 BASE" (load addresses)
 *   itest_stacks N M LIB K LIB2 K2
 * Built at -O2 with frame pointers (itest_stacks_fp), without them
 * (itest_stacks_nofp), and as a stripped copy whose symbols are in a
 * separate .debug file (itest_stacks_stripped). a, b, c, d are noinline and
 * never tail-call (the empty asm after each call), so each keeps its frame;
 * b calls touch after its probe, so that it has a frame of its own.
 * With ITEST_STACKS_WAIT set it prints "ready" and waits for a line on stdin
 * before it starts (for -p). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static volatile long sink;

__attribute__((noinline)) void touch(long path) {
  sink += path;
  KEEP_FRAME();
}

/* Not a leaf: GCC sets up no frame pointer in a leaf function that needs no
 * stack, even with -fno-omit-frame-pointer, and a frame-pointer walk from
 * there skips the caller (perf's too). */
__attribute__((noinline)) void b(long path) {
  DTRACE_PROBE1(stacks, hit, path);
  touch(path);
  KEEP_FRAME();
}

__attribute__((noinline)) void a(void) {
  b(1);
  KEEP_FRAME();
}

__attribute__((noinline)) void c(void) {
  b(2);
  KEEP_FRAME();
}

__attribute__((noinline)) int compare_ints(const void* x, const void* y) {
  DTRACE_PROBE(stacks, compare);
  long l = *(const long*)x, r = *(const long*)y;
  return (l > r) - (l < r);
}

__attribute__((noinline)) void sort_two(void) {
  long v[2] = {2, 1};
  qsort(v, 2, sizeof v[0], compare_ints);
  sink += v[0];
  KEEP_FRAME();
}

__attribute__((noinline)) void d(long (*call)(long), long i) {
  sink += call(i);
  KEEP_FRAME();
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 7;
  long m = argc > 2 ? atol(argv[2]) : 4;
  if (getenv("ITEST_STACKS_WAIT") != NULL) {
    char line[64];
    printf("ready\n");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) return 1;
  }
  for (long i = 0; i < n; ++i) a();
  for (long i = 0; i < m; ++i) c();
  sort_two();
  if (argc > 3) {
    long k = argc > 4 ? atol(argv[4]) : 3;
    void* lib = dlopen(argv[3], RTLD_NOW);
    long (*call)(long) = lib != NULL ? (long (*)(long))dlsym(lib, "fixture_lib_call") : NULL;
    if (call == NULL) {
      fprintf(stderr, "itest_stacks: cannot load %s\n", argv[3]);
      return 1;
    }
    for (long i = 0; i < k; ++i) d(call, i);
    if (argc > 6) {
      Dl_info info;
      if (dladdr((void*)call, &info) == 0) return 1;
      printf("lib1 %p\n", info.dli_fbase);
      dlclose(lib);
      void* lib2 = dlopen(argv[5], RTLD_NOW);
      long (*call2)(long) = lib2 != NULL ? (long (*)(long))dlsym(lib2, "fixture_lib_call") : NULL;
      if (call2 == NULL || dladdr((void*)call2, &info) == 0) {
        fprintf(stderr, "itest_stacks: cannot load %s\n", argv[5]);
        return 1;
      }
      printf("lib2 %p\n", info.dli_fbase);
      fflush(stdout);
      long k2 = atol(argv[6]);
      for (long i = 0; i < k2; ++i) d(call2, 100 + i);
    }
  }
  KEEP_FRAME();
  return 0;
}
