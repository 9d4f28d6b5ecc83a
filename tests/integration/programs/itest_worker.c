/* A process whose probes fire on a thread that is not its main thread, for
 * -p TID. The main thread starts one worker and waits for it. The worker
 * prints "tid T" (its kernel thread id), then for each line on stdin:
 *   fire N   fires itest:worker(k) N times (k counts from 0), prints "fired N"
 *   exit     ends the process with 0 (EOF too)
 * Every output line is flushed at once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

static void* worker(void* arg) {
  (void)arg;
  char line[128];
  long k = 0;
  printf("tid %ld\n", (long)syscall(SYS_gettid));
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strncmp(line, "fire ", 5) == 0) {
      long n = atol(line + 5);
      for (long i = 0; i < n; ++i, ++k) DTRACE_PROBE1(itest, worker, k);
      printf("fired %ld\n", n);
    } else if (strncmp(line, "exit", 4) == 0) {
      break;
    }
  }
  return NULL;
}

int main(void) {
  pthread_t id;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (pthread_create(&id, NULL, worker, NULL) != 0) return 1;
  pthread_join(id, NULL);
  return 0;
}
