/* The workload of fp_leaf_cost.py: one USDT probe fired HITS times, in a
 * leaf function without a frame (-s leaf: -g fp reads its caller from the
 * stack) or in a function whose frame is set up (-s framed: -g fp samples
 * as before). Built -O2 -fno-omit-frame-pointer.
 *
 * Usage: fp_leaf [-n HITS] [-s leaf|framed]
 * Prints {"site":"leaf","hits":N,"loop_ns":T,"cpu_ns":C}: the wall time spent
 * firing, and the CPU time (user + system: the trap and the sample are the
 * system part) of the whole process, which other load on the machine
 * disturbs less. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

__attribute__((noinline)) void touch(uint64_t i) { sink += i; }

__attribute__((noinline)) void leaf(uint64_t i) {
  DTRACE_PROBE1(bench_fp, leaf, i);
  sink += i;
}

__attribute__((noinline)) void framed(uint64_t i) {
  touch(i);
  DTRACE_PROBE1(bench_fp, framed, i);
  touch(i);
}

__attribute__((noinline)) void run(uint64_t hits, int use_leaf) {
  for (uint64_t i = 0; i < hits; i++) {
    if (use_leaf) {
      leaf(i);
    } else {
      framed(i);
    }
  }
  __asm__ volatile("" ::: "memory");
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char** argv) {
  uint64_t hits = 100000;
  int use_leaf = 1;
  int opt;
  while ((opt = getopt(argc, argv, "n:s:")) != -1) {
    if (opt == 'n') {
      hits = strtoull(optarg, NULL, 10);
    } else if (opt == 's' && (strcmp(optarg, "leaf") == 0 || strcmp(optarg, "framed") == 0)) {
      use_leaf = strcmp(optarg, "leaf") == 0;
    } else {
      fprintf(stderr, "usage: %s [-n HITS] [-s leaf|framed]\n", argv[0]);
      return 2;
    }
  }
  uint64_t start = now_ns();
  run(hits, use_leaf);
  uint64_t loop_ns = now_ns() - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  uint64_t cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
                    ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
  printf("{\"site\":\"%s\",\"hits\":%llu,\"loop_ns\":%llu,\"cpu_ns\":%llu}\n",
         use_leaf ? "leaf" : "framed", (unsigned long long)hits, (unsigned long long)loop_ns,
         (unsigned long long)cpu_ns);
  return 0;
}
