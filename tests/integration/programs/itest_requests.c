/* A workload for the always-on tests (always_on_test.cpp), driven by
 * commands: given as arguments (each one command, run in order, then exit)
 * or, without arguments, line by line on stdin after printing "ready".
 *   tick N            fires itest:tick(k) N times, k counting from 0 over
 *                     the whole run; prints "ticked K" (K: the next k)
 *   requests N S MS   serves N requests: itest:req_start(r) then
 *                     itest:req_done(r), r counting from 0 over the whole
 *                     run; the request S of these N (0-based, -1: none)
 *                     waits MS milliseconds between its start and its
 *                     done; prints "served R" (R: the next r)
 *   exit              exits 0 (EOF too)
 * Every output line is flushed at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>

static long next_tick = 0, next_request = 0;

static void wait_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int run(const char* line) {
  if (strncmp(line, "tick ", 5) == 0) {
    long n = atol(line + 5);
    for (long i = 0; i < n; ++i, ++next_tick) DTRACE_PROBE1(itest, tick, next_tick);
    printf("ticked %ld\n", next_tick);
  } else if (strncmp(line, "requests ", 9) == 0) {
    long n = 0, slow = -1, ms = 0;
    if (sscanf(line + 9, "%ld %ld %ld", &n, &slow, &ms) < 1) return 1;
    for (long i = 0; i < n; ++i, ++next_request) {
      DTRACE_PROBE1(itest, req_start, next_request);
      if (i == slow) wait_ms(ms);
      DTRACE_PROBE1(itest, req_done, next_request);
    }
    printf("served %ld\n", next_request);
  } else if (strncmp(line, "exit", 4) == 0) {
    return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) run(argv[i]);
    return 0;
  }
  printf("ready\n");
  char line[256];
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (!run(line)) break;
  }
  return 0;
}
