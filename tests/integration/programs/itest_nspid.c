/* For the PID namespace tests: run as `unshare --pid --fork itest_nspid`,
 * it is PID 1 of a new namespace. It prints "pid P host H": its pid as it
 * sees it (getpid()) and as the host does (/proc/self, which names the
 * process in the namespace of the proc mount, the host's unless one was
 * mounted for the namespace). Then for each line on stdin:
 *   fire N   fires nspid:tick(k) N times (k counts from 0), prints "fired N"
 *   exit     exits 0 (EOF too)
 * Every output line is flushed at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

int main(void) {
  char host[64] = {0};
  if (readlink("/proc/self", host, sizeof host - 1) < 0) strcpy(host, "?");
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("pid %ld host %s\n", (long)getpid(), host);
  char line[128];
  long k = 0;
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strncmp(line, "fire ", 5) == 0) {
      long n = atol(line + 5);
      for (long i = 0; i < n; ++i, ++k) DTRACE_PROBE1(nspid, tick, k);
      printf("fired %ld\n", n);
    } else if (strncmp(line, "exit", 4) == 0) {
      break;
    }
  }
  return 0;
}
