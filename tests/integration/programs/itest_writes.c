/* Usage: itest_writes write N      writes N times to fd 57 (/dev/null), write i
 *                                  of 1000 + i bytes, each after itest:write(i, size)
 *        itest_writes forever      writes 1-byte records to fd 57 until killed
 *        itest_writes count N      prints its pid, waits for a line on stdin, then
 *                                  writes N 1-byte records to fd 57 and exits
 *        itest_writes sleep N      prints its pid, waits for a line on stdin, then
 *                                  sleeps 10 ms N times (each one a switch off the CPU)
 * fd 57 and the sizes tell the program's own writes from those of its start-up
 * and of the C library. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#define FD 57

static char buffer[1000 + 1024];

static int open_sink(void) {
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0 || dup2(fd, FD) != FD) return -1;
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (strcmp(argv[1], "write") == 0 && argc >= 3) {
    long n = atol(argv[2]);
    if (open_sink() != 0 || n > 1024) return 1;
    for (long i = 0; i < n; ++i) {
      size_t size = 1000 + (size_t)i;
      DTRACE_PROBE2(itest, write, i, size);
      if (write(FD, buffer, size) != (ssize_t)size) return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "forever") == 0) {
    if (open_sink() != 0) return 1;
    for (;;) {
      if (write(FD, buffer, 1) != 1) return 1;
      usleep(100);
    }
  }
  if (strcmp(argv[1], "count") == 0 && argc >= 3) {
    long n = atol(argv[2]);
    if (open_sink() != 0) return 1;
    printf("%d\n", (int)getpid());
    fflush(stdout);
    char line[64];
    if (fgets(line, sizeof line, stdin) == NULL) return 1;
    for (long i = 0; i < n; ++i) {
      if (write(FD, buffer, 1) != 1) return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "sleep") == 0 && argc >= 3) {
    long n = atol(argv[2]);
    printf("%d\n", (int)getpid());
    fflush(stdout);
    char line[64];
    if (fgets(line, sizeof line, stdin) == NULL) return 1;
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    for (long i = 0; i < n; ++i) nanosleep(&ten_ms, NULL);
    return 0;
  }
  return 2;
}
