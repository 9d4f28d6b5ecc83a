/* Usage: itest_threads THREADS ITERATIONS
 * Starts THREADS threads; thread t (1-based) fires itest:thread(t, i, tid)
 * for i = 0..ITERATIONS-1, with tid its kernel thread id. The main thread
 * fires itest:main(THREADS) once after joining them. Prints each thread's
 * "t tid" on stdout. Exits 3 with status 7 to check exit status passing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

static long iterations;

static void* run(void* arg) {
  long t = (long)arg;
  long tid = (long)gettid();
  for (long i = 0; i < iterations; ++i) DTRACE_PROBE3(itest, thread, t, i, tid);
  printf("%ld %ld\n", t, tid);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  long threads = atol(argv[1]);
  iterations = atol(argv[2]);
  pthread_t ids[64];
  if (threads > 64) threads = 64;
  for (long t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, run, (void*)(t + 1));
  for (long t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  DTRACE_PROBE1(itest, main, threads);
  fflush(stdout);
  return 7;
}
