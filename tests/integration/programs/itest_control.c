/* A program driven line by line on stdin, for attach (-p) and semaphore
 * tests. It prints "ready" at start, then for each line:
 *   fire N   fires itest:tick(k, -k) N times (k counts from 0 over the whole
 *            run) and itest:gated(k) each time its semaphore is raised,
 *            then prints "fired N gated G"
 *   sem      prints "sem V", the semaphore's current value
 *   dlopen PATH   loads a shared library, prints "loaded" (or "dlopen failed")
 *   call N   calls fixture_lib_call(k) of that library for k = 0..N-1,
 *            prints "called N"
 *   exit     exits 0 (EOF too)
 * Every output line is flushed at once. */
#define _SDT_HAS_SEMAPHORES 1
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

/* With _SDT_HAS_SEMAPHORES every probe of the unit names a semaphore;
 * only itest:gated checks its own. */
__extension__ volatile unsigned short itest_gated_semaphore
    __attribute__((unused)) __attribute__((section(".probes"))) = 0;
__extension__ volatile unsigned short itest_tick_semaphore
    __attribute__((unused)) __attribute__((section(".probes"))) = 0;

int main(void) {
  char line[512];
  long k = 0;
  long (*lib_call)(long) = NULL;
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready\n");
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strncmp(line, "fire ", 5) == 0) {
      long n = atol(line + 5), gated = 0;
      for (long i = 0; i < n; ++i, ++k) {
        DTRACE_PROBE2(itest, tick, k, -k);
        if (__builtin_expect(itest_gated_semaphore, 0)) {
          DTRACE_PROBE1(itest, gated, k);
          ++gated;
        }
      }
      printf("fired %ld gated %ld\n", n, gated);
    } else if (strncmp(line, "dlopen ", 7) == 0) {
      line[strcspn(line, "\n")] = '\0';
      void* lib = dlopen(line + 7, RTLD_NOW);
      if (lib != NULL) lib_call = (long (*)(long))dlsym(lib, "fixture_lib_call");
      printf(lib_call != NULL ? "loaded\n" : "dlopen failed\n");
    } else if (strncmp(line, "call ", 5) == 0) {
      long n = atol(line + 5);
      for (long i = 0; i < n && lib_call != NULL; ++i) lib_call(i);
      printf("called %ld\n", lib_call != NULL ? n : 0L);
    } else if (strncmp(line, "sem", 3) == 0) {
      printf("sem %u\n", (unsigned)itest_gated_semaphore);
    } else if (strncmp(line, "exit", 4) == 0) {
      break;
    }
  }
  return 0;
}
