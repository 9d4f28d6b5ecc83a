/* Usage: itest_fork CHILDREN ITERATIONS
 * Forks CHILDREN children; child c (1-based) execs this program as
 * "itest_fork child c ITERATIONS", which fires itest:child(c, i) for
 * i = 0..ITERATIONS-1. One more child forks without exec and fires
 * itest:forked(i) ITERATIONS times. The parent fires itest:parent(CHILDREN)
 * after waiting for all of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "child") == 0) {
    long c = atol(argv[2]), n = atol(argv[3]);
    for (long i = 0; i < n; ++i) DTRACE_PROBE2(itest, child, c, i);
    return 0;
  }
  if (argc < 3) return 2;
  long children = atol(argv[1]);
  long n = atol(argv[2]);
  for (long c = 1; c <= children; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      char cs[32];
      snprintf(cs, sizeof cs, "%ld", c);
      execl("/proc/self/exe", argv[0], "child", cs, argv[2], (char*)NULL);
      _exit(127);
    }
  }
  pid_t pid = fork();
  if (pid == 0) {
    for (long i = 0; i < n; ++i) DTRACE_PROBE1(itest, forked, i);
    _exit(0);
  }
  int status, failures = 0;
  while (wait(&status) > 0) failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  DTRACE_PROBE1(itest, parent, children);
  return failures;
}
