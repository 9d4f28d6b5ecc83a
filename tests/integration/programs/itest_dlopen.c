/* Libraries loaded during a recording (usdt-record follows new mappings):
 *   itest_dlopen MODE LIB N [LIB2 N2]
 * MODE "file": dlopen(LIB); MODE "memfd": LIB's bytes copied into a memfd
 * and dlopen("/proc/self/fd/FD") (how libstapsdt-style providers made at
 * run time are loaded). Then N calls of the library's dynlib_call(i),
 * i = 0..N-1, each firing dynlib:call(i, TAG) (TAG 1 or 2, the library's).
 * With LIB2: dlclose(LIB) (unmapped), dlopen(LIB2) (mapped where LIB was,
 * or over part of it) and N2 calls of its dynlib_call.
 * Environment: ITEST_DLOPEN_WAIT=1: print "ready" and wait for a line on
 * stdin before the first dlopen (time for -p to attach), and after each
 * dlopen print "loaded LIBNO" and wait for a line (the test sends it once
 * the recorder said it attached the library: then every call is recorded);
 * ITEST_DLOPEN_GAP_US: sleep this long before each call;
 * ITEST_DLOPEN_PAUSE_AT=K: after the first K calls of a library print
 * "called LIBNO K" and wait for a line (the test sends it once the recorder
 * said it attached the library: every later call is then recorded);
 * ITEST_DLOPEN_HOLD=1: after the last call print "held" and wait for a line
 * (or EOF, or the end of the recording) before exiting, the libraries still
 * mapped.
 * Prints, per call, "call LIBNO I TIME_NS" (CLOCK_MONOTONIC just before the
 * call: the test checks every call after the sites became active was
 * recorded), and "base LIBNO ADDRESS" per load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long env_long(const char* name) {
  const char* v = getenv(name);
  return v != NULL ? atol(v) : 0;
}

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The path dlopen() gets: LIB itself, or a memfd holding a copy of it. */
static const char* load_path(const char* mode, const char* lib, char* buf, size_t size) {
  if (strcmp(mode, "memfd") != 0) return lib;
  int in = open(lib, O_RDONLY);
  int fd = memfd_create("dynlib", 0);
  if (in < 0 || fd < 0) {
    perror("itest_dlopen: memfd");
    exit(2);
  }
  char block[65536];
  ssize_t n;
  while ((n = read(in, block, sizeof block)) > 0) {
    if (write(fd, block, (size_t)n) != n) {
      perror("itest_dlopen: write");
      exit(2);
    }
  }
  close(in);
  snprintf(buf, size, "/proc/self/fd/%d", fd);
  return buf;
}

/* Flushes stdout and waits for a line on stdin (EOF: go on). */
static void wait_for_line(void) {
  char line[64];
  fflush(stdout);
  if (fgets(line, sizeof line, stdin) == NULL) return;
}

static void* load(int libno, const char* mode, const char* lib) {
  char buf[64];
  void* handle = dlopen(load_path(mode, lib, buf, sizeof buf), RTLD_NOW);
  if (handle == NULL) {
    fprintf(stderr, "itest_dlopen: %s\n", dlerror());
    exit(2);
  }
  Dl_info info;
  void* call = dlsym(handle, "dynlib_call");
  if (call != NULL && dladdr(call, &info) != 0) printf("base %d %p\n", libno, info.dli_fbase);
  if (env_long("ITEST_DLOPEN_WAIT") != 0) {
    printf("loaded %d\n", libno);
    wait_for_line();
  }
  return handle;
}

static void run(int libno, void* handle, long n) {
  long (*call)(long) = (long (*)(long))dlsym(handle, "dynlib_call");
  long gap_us = env_long("ITEST_DLOPEN_GAP_US");
  long pause_at = env_long("ITEST_DLOPEN_PAUSE_AT");
  for (long i = 0; i < n; ++i) {
    if (pause_at > 0 && i == pause_at) {
      printf("called %d %ld\n", libno, i);
      wait_for_line();
    }
    if (gap_us > 0) usleep((useconds_t)gap_us);
    unsigned long long t = now_ns();
    call(i);
    printf("call %d %ld %llu\n", libno, i, t);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: itest_dlopen file|memfd LIB N [LIB2 N2]\n");
    return 2;
  }
  if (env_long("ITEST_DLOPEN_WAIT") != 0) {
    printf("ready\n");
    wait_for_line();
  }
  void* first = load(1, argv[1], argv[2]);
  run(1, first, atol(argv[3]));
  if (argc >= 6) {
    dlclose(first);
    void* second = load(2, argv[1], argv[4]);
    run(2, second, atol(argv[5]));
  }
  if (env_long("ITEST_DLOPEN_HOLD") != 0) {
    printf("held\n");
    wait_for_line();
  }
  fflush(stdout);
  return 0;
}
