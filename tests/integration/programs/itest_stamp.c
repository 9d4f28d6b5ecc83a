/* For the tests of a recording's start: itest_stamp fires
 * stamp:tick(k, t, before) about every millisecond, k counting from 0, t the
 * CLOCK_MONOTONIC time read just before the hit and before the t of the hit
 * k - 1 (0 for the first). It prints "ready" first. A line "stop N" on stdin
 * makes it fire N more hits and exit, printing "stopped K", K the last hit's
 * k; EOF makes it stop at once. A hit happened after its t: one whose t is
 * after the moment a recorder armed its probes must be in the trace, and
 * the first hit a trace holds tells, by before, when the one it missed was. */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready\n");
  struct pollfd in = {0, POLLIN, 0};
  uint64_t before = 0;
  long k = 0, left = -1; /* -1: until told */
  for (;; ++k) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    DTRACE_PROBE3(stamp, tick, k, t, before);
    before = t;
    if (left > 0 && --left == 0) break;
    if (left < 0 && poll(&in, 1, 1) != 0) {
      char line[64];
      if (fgets(line, sizeof line, stdin) == NULL || strncmp(line, "stop ", 5) != 0) break;
      left = atol(line + 5);
      if (left <= 0) break;
    } else if (left > 0) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  }
  printf("stopped %ld\n", k);
  return 0;
}
