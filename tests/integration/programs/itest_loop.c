/* Usage: itest_loop THREADS ITERATIONS
 * A tight loop: each of THREADS threads (1-based t) fires
 * itest:loop(i, t) for i = 0..ITERATIONS-1, two register arguments. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/sdt.h>

static long iterations;

static void* run(void* arg) {
  long t = (long)arg;
  for (long i = 0; i < iterations; ++i) DTRACE_PROBE2(itest, loop, i, t);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  long threads = atol(argv[1]);
  iterations = atol(argv[2]);
  if (threads <= 1) {
    run((void*)1L);
    return 0;
  }
  pthread_t ids[16];
  if (threads > 16) threads = 16;
  for (long t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, run, (void*)(t + 1));
  for (long t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  return 0;
}
