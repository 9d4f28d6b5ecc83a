/* Process churn for the tests of long recordings: itest_churn N [wait]
 * forks N children one after another; each fires churn:child(i) once and
 * exits, and the parent reaps it. Then the parent fires churn:done(N),
 * prints "churned N" and, with "wait", waits for a line (or EOF) on stdin
 * before it exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  long n = atol(argv[1]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (long i = 0; i < n; ++i) {
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
      DTRACE_PROBE1(churn, child, i);
      _exit(0);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 1;
  }
  DTRACE_PROBE1(churn, done, n);
  printf("churned %ld\n", n);
  if (argc > 2 && strcmp(argv[2], "wait") == 0) {
    char line[16];
    if (fgets(line, sizeof line, stdin) == NULL) return 0;
  }
  return 0;
}
