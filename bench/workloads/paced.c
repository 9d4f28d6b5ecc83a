/* A workload at a steady rate, for the always-on benchmarks
 * (bench/always_on/): bench:hit2(i, 1) fired RATE times a second, in a burst
 * every millisecond, for SECONDS, after (optionally) FILL hits of
 * bench:fill(x, y) as fast as it can with arguments that compress poorly (to
 * fill a flight recorder's memory quickly).
 *
 * Usage: paced [-r RATE] [-d SECONDS] [-f FILL] [-i INTERVAL_MS]
 *
 * Prints one JSON line to stdout when the paced phase begins, then one every
 * INTERVAL_MS (default 250) and at the end, flushed at once:
 *   {"phase":"paced","t_ns":T,"mono_ns":M,"hits":H,"cpu_ns":C}
 * T: ns since the paced phase began (M: CLOCK_MONOTONIC then); H: its hits
 * so far; C: the process's CPU time (user + system) so far, where a tracer's
 * trap and sample land. The
 * fill phase prints {"phase":"filled","hits":FILL,"cpu_ns":C} when done. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void) { return now_ns(CLOCK_PROCESS_CPUTIME_ID); }

int main(int argc, char** argv) {
  uint64_t rate = 20000, seconds = 10, fill = 0, interval_ms = 250;
  int opt;
  while ((opt = getopt(argc, argv, "r:d:f:i:")) != -1) {
    switch (opt) {
      case 'r': rate = strtoull(optarg, NULL, 10); break;
      case 'd': seconds = strtoull(optarg, NULL, 10); break;
      case 'f': fill = strtoull(optarg, NULL, 10); break;
      case 'i': interval_ms = strtoull(optarg, NULL, 10); break;
      default: return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < fill; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    DTRACE_PROBE2(bench, fill, x, x * 0xbf58476d1ce4e5b9ull);
  }
  if (fill != 0) printf("{\"phase\":\"filled\",\"hits\":%llu,\"cpu_ns\":%llu}\n",
                        (unsigned long long)fill, (unsigned long long)cpu_ns());
  const uint64_t per_ms = rate / 1000;
  const uint64_t start = now_ns(CLOCK_MONOTONIC);
  const uint64_t end = start + seconds * 1000000000ull;
  uint64_t i = 0, next_report = start;
  struct timespec tick;
  clock_gettime(CLOCK_MONOTONIC, &tick);
  for (;;) {
    uint64_t now = now_ns(CLOCK_MONOTONIC);
    if (now >= next_report || now >= end) {
      printf("{\"phase\":\"paced\",\"t_ns\":%llu,\"mono_ns\":%llu,\"hits\":%llu,"
             "\"cpu_ns\":%llu}\n",
             (unsigned long long)(now - start), (unsigned long long)now, (unsigned long long)i,
             (unsigned long long)cpu_ns());
      next_report += interval_ms * 1000000ull;
    }
    if (now >= end) break;
    for (uint64_t k = 0; k < per_ms; k++, i++) DTRACE_PROBE2(bench, hit2, i, 1);
    tick.tv_nsec += 1000000;
    if (tick.tv_nsec >= 1000000000) {
      tick.tv_nsec -= 1000000000;
      tick.tv_sec += 1;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
  }
  return 0;
}
