/* A burst of executable mappings, for the side band's loss accounting:
 *   itest_mmaps N
 * Prints "ready" and waits for a line on stdin; then maps its own
 * executable N times with PROT_EXEC and unmaps it (one PERF_RECORD_MMAP2
 * each, far more than the recorder's side-band ring holds while it is
 * stopped), fires mmaps:done(N), prints "done" and waits for stdin to close. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  int fd = open("/proc/self/exe", O_RDONLY);
  if (fd < 0) {
    perror("itest_mmaps: /proc/self/exe");
    return 2;
  }
  printf("ready\n");
  fflush(stdout);
  char line[64];
  if (fgets(line, sizeof line, stdin) == NULL) return 2;
  for (long i = 0; i < n; ++i) {
    void* p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      perror("itest_mmaps: mmap");
      return 2;
    }
    munmap(p, 4096);
  }
  DTRACE_PROBE1(mmaps, done, n);
  printf("done\n");
  fflush(stdout);
  while (fgets(line, sizeof line, stdin) != NULL) {
  }
  return 0;
}
