/* Context-switch cost under perf events: two processes bounce a byte
 * through pipes; pinned to one CPU (taskset -c 0), every round trip is two
 * context switches. bench/lib/ctx_switch.py (workload ctxswitch) runs it
 * under usdt-record with per-task events (`--`) and per-CPU events (`-a`) on
 * its probes bench:pingpong0..7, which fire once each at the end, so what
 * the recordings cost it is the context switches alone. By hand, compare
 *   taskset -c 0 ./pingpong
 *   perf record -e dummy -o /tmp/a -- taskset -c 0 ./pingpong      (task-bound, inherited)
 *   perf record -a -e dummy -o /tmp/b -- taskset -c 0 ./pingpong   (CPU-wide)
 * Measured on the 2-core VM (medians of 7): 5021, 5746, 5208 ns per round trip:
 * a task-bound event costs about 360 ns per context switch of the traced tasks,
 * a CPU-wide one about 95. The cost is per PMU a task has events of, not per
 * event (2026-12-03: perf record -e sdt_bench:pingpong0 7,600 -> 8,360 ns per
 * round trip; with -e dummy:u added 8,510, with four of them the same), so
 * usdt-record's per-task tracking event is of the sites' own PMU. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) return 1;
  char c = 0;
  const int n = 100000;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (fork() == 0) {
    for (int i = 0; i < n; i++) {
      if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1) _exit(1);
    }
    _exit(0);
  }
  for (int i = 0; i < n; i++) {
    if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) return 1;
  }
  wait(NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* Eight probe sites, for recordings with one event per site and task. */
  DTRACE_PROBE1(bench, pingpong0, n);
  DTRACE_PROBE1(bench, pingpong1, n);
  DTRACE_PROBE1(bench, pingpong2, n);
  DTRACE_PROBE1(bench, pingpong3, n);
  DTRACE_PROBE1(bench, pingpong4, n);
  DTRACE_PROBE1(bench, pingpong5, n);
  DTRACE_PROBE1(bench, pingpong6, n);
  DTRACE_PROBE1(bench, pingpong7, n);
  /* CPU time of both processes (the child is reaped): on a shared machine
   * the wall time also counts other jobs holding the CPU, the CPU time mostly
   * the switches and pipe calls themselves. */
  struct rusage self, child;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &child);
  double cpu_ns = (self.ru_utime.tv_sec + self.ru_stime.tv_sec + child.ru_utime.tv_sec + child.ru_stime.tv_sec) * 1e9 +
                  (self.ru_utime.tv_usec + self.ru_stime.tv_usec + child.ru_utime.tv_usec + child.ru_stime.tv_usec) * 1e3;
  printf("%.0f ns/roundtrip %.0f cpu_ns/roundtrip\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n,
         cpu_ns / n);
  return 0;
}
