/* A tiny "server" with USDT probes, the bundled example of the README.
 *
 * Two worker threads handle requests. Each request fires
 *   demo:req_start(id, size)          when it begins, and
 *   demo:req_done(id, size, status)   when it ends,
 * and the work it does grows with its size, so the latency report shows a
 * spread with a slow tail. demo:cache_miss(id) fires for one request in ten.
 *
 * A request takes one of three routes (read, write, search), each a few
 * calls deep, and the probes fire from inside them, so that the call stacks
 * of the events (usdt-record -g) say which route an event came from. The
 * functions are kept out of line and built with frame pointers and without
 * tail calls (examples/CMakeLists.txt), so that the stacks show the calls
 * as written.
 *
 * Usage: request_demo [REQUESTS]   (default 20000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

#define STEP __attribute__((noinline))

static long requests = 20000;

/* Busy work of about `units` microseconds, so the example needs no sleeps
 * that would make it slow to run. */
static STEP void spin_us(uint32_t units) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed_ns = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
    if (elapsed_ns >= (long)units * 1000L) return;
  }
}

/* One request in ten misses the cache and reads from "disk". */
static STEP void read_from_disk(uint64_t id) {
  DTRACE_PROBE1(demo, cache_miss, id);
  spin_us(40);
}

static STEP void lookup_cache(uint64_t id) {
  if (id % 10 == 3) read_from_disk(id);
}

/* Request 0, 97, 194, ... fail. */
static STEP void send_reply(uint64_t id, uint32_t size) {
  int32_t status = id % 97 == 0 ? -1 : 200;
  DTRACE_PROBE3(demo, req_done, id, size, status);
}

static STEP void handle_read(uint64_t id, uint32_t size) {
  lookup_cache(id);
  spin_us(size / 64);
  send_reply(id, size);
}

static STEP void append_log(uint32_t size) { spin_us(size / 128); }

static STEP void handle_write(uint64_t id, uint32_t size) {
  lookup_cache(id);
  append_log(size);
  spin_us(size / 128);
  send_reply(id, size);
}

static STEP void scan_index(uint64_t id, uint32_t size) {
  lookup_cache(id);
  spin_us(size / 64);
}

static STEP void handle_search(uint64_t id, uint32_t size) {
  scan_index(id, size);
  send_reply(id, size);
}

static STEP uint32_t parse_request(uint64_t id) {
  /* Deterministic sizes: mostly small, every 50th request large. */
  uint32_t size = (uint32_t)(256 + (id * 7919) % 4096);
  if (id % 50 == 0) size *= 16;
  DTRACE_PROBE2(demo, req_start, id, size);
  return size;
}

/* Requests take turns: read, write, search. */
static STEP void handle_request(uint64_t id) {
  uint32_t size = parse_request(id);
  if (id % 3 == 0) {
    handle_read(id, size);
  } else if (id % 3 == 1) {
    handle_write(id, size);
  } else {
    handle_search(id, size);
  }
}

static void* worker(void* arg) {
  uintptr_t first = (uintptr_t)arg;
  for (uint64_t id = first; id < (uint64_t)requests; id += 2) handle_request(id);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    char* end;
    requests = strtol(argv[1], &end, 10);
    if (*end != '\0' || requests < 0) {
      fprintf(stderr, "usage: %s [REQUESTS]\n", argv[0]);
      return 2;
    }
  }
  pthread_t threads[2];
  for (uintptr_t i = 0; i < 2; i++) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  printf("request_demo: handled %ld requests\n", requests);
  return 0;
}
