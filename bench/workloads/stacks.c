/* The call-stack benchmark's workload: one USDT probe, bench_stack:hit(i, path),
 * fired N times at the bottom of four different call paths, so that an
 * unwinder has real frames to walk and a report has distinct stacks to count.
 *
 * Usage: stacks [-n HITS]
 *
 * Hit i goes down path i % 4:
 *   path 0: main -> run -> route_a -> step_x -> leaf -> probe
 *   path 1: main -> run -> route_a -> step_y -> leaf -> probe
 *   path 2: main -> run -> route_b -> step_x -> leaf -> probe
 *   path 3: main -> run -> route_b -> step_y -> deeper -> leaf -> probe
 * Built like a distribution builds (-O2, no frame pointers): the stacks can
 * only be walked with the unwind tables (.eh_frame), which is what
 * --call-graph dwarf is for.
 *
 * At exit it prints the same JSON line as loop.c (to stderr, or appended to
 * the file named by BENCH_RESULT), with loop_ns the time spent firing:
 *   {"variant":"stacks","threads":1,"hits":N,"events":N,"loop_ns":T,"utime_ns":U,"stime_ns":S}
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

/* noipa: no inlining, cloning or interprocedural shortcuts, so every level
 * is a real frame. The sums after each call keep the calls from being tail
 * calls (a tail call leaves no frame of the caller on the stack). */
#define LEVEL __attribute__((noinline, noipa))

static volatile uint64_t sink;

LEVEL static uint64_t leaf(uint64_t i, uint64_t path) {
  DTRACE_PROBE2(bench_stack, hit, i, path);
  return i + path;
}

LEVEL static uint64_t deeper(uint64_t i, uint64_t path) { return leaf(i, path) + 1; }
LEVEL static uint64_t step_x(uint64_t i, uint64_t path) { return leaf(i, path) + 2; }
LEVEL static uint64_t step_y(uint64_t i, uint64_t path) {
  return (path == 3 ? deeper(i, path) : leaf(i, path)) + 3;
}
LEVEL static uint64_t route_a(uint64_t i, uint64_t path) {
  return (path == 0 ? step_x(i, path) : step_y(i, path)) + 4;
}
LEVEL static uint64_t route_b(uint64_t i, uint64_t path) {
  return (path == 2 ? step_x(i, path) : step_y(i, path)) + 5;
}
LEVEL static void run(uint64_t hits) {
  for (uint64_t i = 0; i < hits; i++) {
    uint64_t path = i % 4;
    sink += path < 2 ? route_a(i, path) : route_b(i, path);
  }
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t timeval_ns(struct timeval tv) {
  return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

int main(int argc, char** argv) {
  uint64_t hits = 100000;
  int opt;
  while ((opt = getopt(argc, argv, "n:")) != -1) {
    char* end;
    if (opt != 'n') goto usage;
    hits = strtoull(optarg, &end, 10);
    if (*end != '\0') goto usage;
  }
  if (optind != argc) goto usage;

  uint64_t start = now_ns();
  run(hits);
  uint64_t loop_ns = now_ns() - start;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  FILE* out = stderr;
  const char* path = getenv("BENCH_RESULT");
  if (path != NULL && *path != '\0') {
    out = fopen(path, "a");
    if (out == NULL) {
      fprintf(stderr, "stacks: error: cannot open '%s'\n", path);
      return 1;
    }
  }
  fprintf(out,
          "{\"variant\":\"stacks\",\"threads\":1,\"hits\":%llu,\"events\":%llu,\"loop_ns\":%llu,"
          "\"utime_ns\":%llu,\"stime_ns\":%llu}\n",
          (unsigned long long)hits, (unsigned long long)hits, (unsigned long long)loop_ns,
          (unsigned long long)timeval_ns(ru.ru_utime), (unsigned long long)timeval_ns(ru.ru_stime));
  if (out != stderr) fclose(out);
  return 0;

usage:
  fprintf(stderr, "usage: %s [-n HITS]\n", argv[0]);
  return 2;
}
