/* The benchmark's synthetic workload: one USDT probe fired N times in a
 * tight loop, from one thread or several at once.
 *
 * Usage: loop [-n HITS] [-t THREADS] [-v VARIANT] [-w SECONDS]
 *   HITS     total probe hits over all threads (default 1000000); each thread
 *            fires HITS / THREADS (the remainder goes to the first thread)
 *   THREADS  threads firing at once (default 1)
 *   VARIANT  reg2   bench:hit2(i, tid_tag)            two register arguments
 *            reg6   bench:hit6(i, a, b, c, d, e)      six register arguments
 *            mem    bench:hitmem(i, stack_value)      one argument read from the stack
 *            kread  bench:hitmem2(rec->i, rec->tag, rec->name)   two words in heap memory
 *                   (`8@N(%reg)`) and a char * to a 64-byte string: what a sample
 *                   cannot hold, read by the kernel at the hit (tracefs fetch-args)
 *            sema   bench_sema:hit(i, tid_tag)        semaphore-gated (only fires when traced)
 *            pair   bench:start(i, tag) + bench:done(i, tag)   two probes per iteration
 *            func   no USDT probe: every iteration calls bench_work(i, tag), a real
 *                   call with i and tag in %rdi and %rsi (bench:hit2's two registers)
 *                   that returns i: the function the fentry (uprobe) and fret
 *                   (uretprobe) workloads probe
 *
 *   SECONDS  sleep this long before firing (an idle instance for a tracer to
 *            attach to with -p while another instance runs untraced)
 *
 * Argument 0 is the iteration number within the thread and argument 1 (or the
 * tag) identifies the thread, so a recording can be checked for lost and
 * duplicated events exactly: every (tag, i) pair must appear once.
 *
 * At exit it prints one JSON line to stderr, or to the file named by the
 * environment variable BENCH_RESULT (appended), with the time spent in the
 * firing loops and its own CPU time:
 *   {"variant":"reg2","threads":1,"hits":N,"events":N,"loop_ns":T,"utime_ns":U,"stime_ns":S}
 * "events" counts probe hits (2 per iteration for "pair"). The benchmark uses
 * loop_ns rather than the wall time of the whole command, so the start-up
 * of the tracer does not count as per-event overhead.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

/* Defined in loop_sema.c: that file is compiled with semaphores on. */
void fire_sema(uint64_t hits, uint64_t tag);

enum variant { kReg2, kReg6, kMem, kSema, kPair, kKread, kFunc };

struct worker {
  pthread_t thread;
  uint64_t hits;
  uint64_t tag;
  enum variant variant;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fire_reg2(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) DTRACE_PROBE2(bench, hit2, i, tag);
}

static void fire_reg6(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) DTRACE_PROBE6(bench, hit6, i, tag, i + 1, i + 2, i ^ tag, i * 3);
}

static void fire_mem(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) {
    /* volatile keeps the value in a stack slot, so the arg spec is a
     * memory operand (N@OFF(%rsp)/(%rbp)) the tracer has to read. */
    volatile uint64_t on_stack = i;
    DTRACE_PROBE2(bench, hitmem, tag, on_stack);
  }
}

/* A record on the heap, as a server would pass one: the probe names its
 * fields, so the arg specs are memory operands based on the record's pointer
 * and the string is a pointer the tracer has to follow. volatile keeps the
 * compiler from handing the probe register copies of the words. */
struct hit_record {
  uint64_t i;
  uint64_t tag;
  const char* name;
};

static void fire_kread(uint64_t hits, uint64_t tag) {
  static const char kName[65] = "bench:hitmem2 string argument, 64 bytes long, read at every hit!";
  volatile struct hit_record* rec = malloc(sizeof *rec);
  if (rec == NULL) abort();
  rec->tag = tag;
  rec->name = kName;
  for (uint64_t i = 0; i < hits; i++) {
    rec->i = i;
    DTRACE_PROBE3(bench, hitmem2, rec->i, rec->tag, rec->name);
  }
  free((void*)rec);
}

static void fire_pair(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) {
    DTRACE_PROBE2(bench, start, i, tag);
    DTRACE_PROBE2(bench, done, i, tag);
  }
}

/* The probed function. noipa (which implies noinline and noclone) keeps gcc
 * from inlining it, cloning it or using what it does at the call site: every
 * iteration makes the call, with i and tag in the argument registers, and the
 * return value (i, unique per hit of a thread) is what a uretprobe records.
 * The empty asm keeps tag live, so the function reads both registers. Not
 * static: the symbol must be in .symtab for uprobe:PATH:bench_work. */
__attribute__((noinline, noipa)) long bench_work(long i, long tag) {
  __asm__ volatile("" : : "r"(tag));
  return i;
}

static void fire_func(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) bench_work((long)i, (long)tag);
}

static void* run_worker(void* arg) {
  struct worker* w = arg;
  switch (w->variant) {
    case kReg2: fire_reg2(w->hits, w->tag); break;
    case kReg6: fire_reg6(w->hits, w->tag); break;
    case kMem: fire_mem(w->hits, w->tag); break;
    case kSema: fire_sema(w->hits, w->tag); break;
    case kPair: fire_pair(w->hits, w->tag); break;
    case kKread: fire_kread(w->hits, w->tag); break;
    case kFunc: fire_func(w->hits, w->tag); break;
  }
  return NULL;
}

static const char* const kVariantNames[] = {"reg2", "reg6", "mem", "sema", "pair", "kread", "func"};

static int parse_variant(const char* s, enum variant* out) {
  for (int v = 0; v < (int)(sizeof kVariantNames / sizeof kVariantNames[0]); v++) {
    if (strcmp(s, kVariantNames[v]) == 0) {
      *out = (enum variant)v;
      return 1;
    }
  }
  return 0;
}

static uint64_t timeval_ns(struct timeval tv) {
  return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static void usage(const char* prog) {
  fprintf(stderr, "usage: %s [-n HITS] [-t THREADS] [-v reg2|reg6|mem|sema|pair|kread|func] [-w SECONDS]\n", prog);
  exit(2);
}

int main(int argc, char** argv) {
  uint64_t hits = 1000000;
  int threads = 1;
  enum variant variant = kReg2;
  unsigned wait_s = 0;
  int opt;
  while ((opt = getopt(argc, argv, "n:t:v:w:")) != -1) {
    char* end;
    switch (opt) {
      case 'n':
        hits = strtoull(optarg, &end, 10);
        if (*end != '\0') usage(argv[0]);
        break;
      case 't':
        threads = (int)strtol(optarg, &end, 10);
        if (*end != '\0' || threads < 1 || threads > 64) usage(argv[0]);
        break;
      case 'v':
        if (!parse_variant(optarg, &variant)) usage(argv[0]);
        break;
      case 'w':
        wait_s = (unsigned)strtoul(optarg, &end, 10);
        if (*end != '\0') usage(argv[0]);
        break;
      default: usage(argv[0]);
    }
  }
  if (optind != argc) usage(argv[0]);
  if (wait_s > 0) sleep(wait_s);

  struct worker workers[64];
  for (int t = 0; t < threads; t++) {
    workers[t].hits = hits / (uint64_t)threads + (t == 0 ? hits % (uint64_t)threads : 0);
    workers[t].tag = (uint64_t)t + 1;
    workers[t].variant = variant;
  }

  uint64_t start = now_ns();
  if (threads == 1) {
    run_worker(&workers[0]);
  } else {
    for (int t = 0; t < threads; t++) {
      int rc = pthread_create(&workers[t].thread, NULL, run_worker, &workers[t]);
      if (rc != 0) {
        fprintf(stderr, "loop: error: cannot start thread %d: %s\n", t, strerror(rc));
        return 1;
      }
    }
    for (int t = 0; t < threads; t++) pthread_join(workers[t].thread, NULL);
  }
  uint64_t loop_ns = now_ns() - start;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  FILE* out = stderr;
  const char* path = getenv("BENCH_RESULT");
  if (path != NULL && *path != '\0') {
    out = fopen(path, "a");
    if (out == NULL) {
      fprintf(stderr, "loop: error: cannot open '%s'\n", path);
      return 1;
    }
  }
  uint64_t events = variant == kPair ? 2 * hits : hits;
  fprintf(out,
          "{\"variant\":\"%s\",\"threads\":%d,\"hits\":%llu,\"events\":%llu,\"loop_ns\":%llu,"
          "\"utime_ns\":%llu,\"stime_ns\":%llu}\n",
          kVariantNames[variant], threads, (unsigned long long)hits, (unsigned long long)events,
          (unsigned long long)loop_ns, (unsigned long long)timeval_ns(ru.ru_utime),
          (unsigned long long)timeval_ns(ru.ru_stime));
  if (out != stderr) fclose(out);
  return 0;
}
