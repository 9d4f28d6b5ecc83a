/* The bare sampler: the least a perf_event_open-based USDT recorder can do,
 * used by the benchmark as the floor for usdt-record's per-event cost.
 *
 * It opens the given uprobes through the uprobe PMU, one event per probe and
 * CPU, samples TID, TIME, CPU and the argument registers into one mmap ring
 * buffer per CPU with a watermark wakeup, and appends the raw perf records to
 * a file. No decoding, no compression, no per-event work besides walking the
 * record headers to count samples and lost records. Then it runs the command.
 *
 * Which tasks: by default the events are CPU-wide (pid = -1), so every
 * process running the binary is sampled; the benchmark runs nothing else that
 * maps it. With -i they are opened on the command (pid = child, inherit = 1)
 * instead, as perf record does, but on kernel 6.18 a uprobe-PMU event cannot
 * be inherited: the kernel copies the path from config1 again at fork/clone
 * time, in the forking task's address space, where the pointer means nothing,
 * and pthread_create/fork fail with EFAULT. -i only works for single-threaded
 * commands that start no children.
 *
 * Usage:
 *   bare_sampler -b BINARY -e OFFSET[:SEMAPHORE_OFFSET] [-e ...] [-r REGMASK]
 *                [-s STACK_BYTES] [-m PAGES] [-i] -o FILE -- COMMAND [ARG...]
 *
 *   OFFSET            file offset of the probed instruction (hex with 0x or decimal)
 *   SEMAPHORE_OFFSET  file offset of the probe's semaphore, if it has one
 *   REGMASK           perf_regs mask of the user registers to sample (x86-64 numbering)
 *   STACK_BYTES       also sample this many bytes of user stack (memory arguments on the stack)
 *   PAGES             data pages per ring buffer, a power of two (default 128 = 512 KiB, as perf)
 *
 * The offsets are computed by bench/lib/sdt_locate.py from `readelf -n` and
 * the program headers. At the end it prints one line to stderr:
 *   bare_sampler: samples=N lost=N bytes=N
 * and exits with the command's exit status. SIGINT or SIGTERM stop the
 * recording: the command gets SIGTERM and the rings are drained.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROBES 8
#define MAX_CPUS 256

struct ring {
  int fd;
  struct perf_event_mmap_page* meta;
  uint8_t* data;
  uint64_t size;
};

static uint64_t g_samples, g_lost, g_bytes;
static volatile sig_atomic_t g_stop;

/* SIGINT/SIGTERM end the recording like the command's exit does. */
static void on_stop(int sig) {
  (void)sig;
  g_stop = 1;
}

static void die(const char* what) {
  fprintf(stderr, "bare_sampler: error: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void usage(void) {
  fprintf(stderr,
          "usage: bare_sampler -b BINARY -e OFFSET[:SEMA] [-e ...] [-r REGMASK] [-s STACK_BYTES]\n"
          "                    [-m PAGES] [-i] -o FILE -- COMMAND [ARG...]\n");
  exit(2);
}

static int read_uprobe_type(void) {
  FILE* f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
  if (f == NULL) die("cannot open /sys/bus/event_source/devices/uprobe/type");
  int type = -1;
  if (fscanf(f, "%d", &type) != 1) {
    fprintf(stderr, "bare_sampler: error: cannot parse the uprobe PMU type\n");
    exit(1);
  }
  fclose(f);
  return type;
}

static void write_all(int fd, const void* buf, size_t len) {
  const uint8_t* p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("cannot write the output file");
    }
    p += n;
    len -= (size_t)n;
  }
}

/* Appends everything between data_tail and data_head to the file as it is
 * (two writes when it wraps) and walks the headers to count. Records are
 * 8-byte aligned, so a header never straddles the end of the ring. */
static void drain(struct ring* r, int out_fd) {
  uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = r->meta->data_tail;
  if (head == tail) return;
  uint64_t mask = r->size - 1;
  uint64_t start = tail & mask;
  uint64_t len = head - tail;
  if (start + len <= r->size) {
    write_all(out_fd, r->data + start, len);
  } else {
    uint64_t first = r->size - start;
    write_all(out_fd, r->data + start, first);
    write_all(out_fd, r->data, len - first);
  }
  for (uint64_t pos = tail; pos < head;) {
    struct perf_event_header* h = (struct perf_event_header*)(r->data + (pos & mask));
    if (h->size == 0) break;
    if (h->type == PERF_RECORD_SAMPLE) {
      g_samples++;
    } else if (h->type == PERF_RECORD_LOST) {
      /* id, then lost; the 8-byte fields never straddle the end either. */
      uint64_t lost_pos = (pos + sizeof *h + 8) & mask;
      g_lost += *(uint64_t*)(r->data + lost_pos);
    }
    pos += h->size;
  }
  g_bytes += len;
  __atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

int main(int argc, char** argv) {
  const char* binary = NULL;
  const char* out_path = NULL;
  uint64_t offsets[MAX_PROBES], semaphores[MAX_PROBES];
  int probes = 0;
  uint64_t regmask = 0;
  uint32_t stack_bytes = 0;
  uint64_t pages = 128;
  int per_task = 0;
  int opt;
  while ((opt = getopt(argc, argv, "+b:e:r:s:m:o:i")) != -1) {
    char* end;
    switch (opt) {
      case 'b': binary = optarg; break;
      case 'o': out_path = optarg; break;
      case 'i': per_task = 1; break;
      case 'e':
        if (probes == MAX_PROBES) usage();
        offsets[probes] = strtoull(optarg, &end, 0);
        semaphores[probes] = 0;
        if (*end == ':') semaphores[probes] = strtoull(end + 1, &end, 0);
        if (*end != '\0') usage();
        probes++;
        break;
      case 'r':
        regmask = strtoull(optarg, &end, 0);
        if (*end != '\0') usage();
        break;
      case 's':
        stack_bytes = (uint32_t)strtoul(optarg, &end, 0);
        if (*end != '\0' || stack_bytes % 8 != 0) usage();
        break;
      case 'm':
        pages = strtoull(optarg, &end, 0);
        if (*end != '\0' || pages == 0 || (pages & (pages - 1)) != 0) usage();
        break;
      default: usage();
    }
  }
  if (binary == NULL || out_path == NULL || probes == 0 || optind >= argc) usage();
  char** command = argv + optind;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  int out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0) die("cannot create the output file");

  /* The child waits on a pipe until every event is attached, then execs. */
  int go[2];
  if (pipe2(go, O_CLOEXEC) != 0) die("pipe");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1) _exit(127);
    execvp(command[0], command);
    fprintf(stderr, "bare_sampler: error: cannot run '%s': %s\n", command[0], strerror(errno));
    _exit(127);
  }
  close(go[0]);

  int uprobe_type = read_uprobe_type();
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  if (cpus > MAX_CPUS) cpus = MAX_CPUS;
  long page_size = sysconf(_SC_PAGESIZE);
  static struct ring rings[MAX_CPUS];
  int ring_count = 0;

  for (long cpu = 0; cpu < cpus; cpu++) {
    int leader = -1;
    for (int p = 0; p < probes; p++) {
      struct perf_event_attr attr;
      memset(&attr, 0, sizeof attr);
      attr.size = sizeof attr;
      attr.type = (uint32_t)uprobe_type;
      attr.config = semaphores[p] << 32; /* ref_ctr_offset = config:32-63 */
      attr.config1 = (uint64_t)(uintptr_t)binary;
      attr.config2 = offsets[p];
      attr.sample_period = 1;
      attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
      if (probes > 1) attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
      if (regmask != 0) {
        attr.sample_type |= PERF_SAMPLE_REGS_USER;
        attr.sample_regs_user = regmask;
      }
      if (stack_bytes != 0) {
        attr.sample_type |= PERF_SAMPLE_STACK_USER;
        attr.sample_stack_user = stack_bytes;
      }
      if (per_task) {
        /* Enabled on exec, so the sampler's own fork path is not traced. */
        attr.disabled = 1;
        attr.enable_on_exec = 1;
        attr.inherit = 1;
      }
      attr.watermark = 1;
      attr.wakeup_watermark = (uint32_t)(pages * (uint64_t)page_size / 4);
      int fd = (int)syscall(SYS_perf_event_open, &attr, per_task ? child : -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
      if (fd < 0) {
        if (errno == ENODEV || errno == EINVAL) break; /* CPU offline */
        kill(child, SIGKILL);
        die("perf_event_open");
      }
      if (leader < 0) {
        leader = fd;
        void* base = mmap(NULL, (size_t)((pages + 1) * (uint64_t)page_size), PROT_READ | PROT_WRITE,
                          MAP_SHARED, fd, 0);
        if (base == MAP_FAILED) {
          kill(child, SIGKILL);
          die("mmap of the ring buffer");
        }
        struct ring* r = &rings[ring_count++];
        r->fd = fd;
        r->meta = base;
        r->data = (uint8_t*)base + page_size;
        r->size = pages * (uint64_t)page_size;
      } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader) != 0) {
        kill(child, SIGKILL);
        die("PERF_EVENT_IOC_SET_OUTPUT");
      }
    }
  }
  if (ring_count == 0) {
    kill(child, SIGKILL);
    fprintf(stderr, "bare_sampler: error: no CPU accepted the event\n");
    return 1;
  }

  if (write(go[1], "g", 1) != 1) die("cannot start the command");
  close(go[1]);

  /* Ready: what a benchmark driver waits for before it starts the load. */
  fprintf(stderr, "bare_sampler: ready, %d ring buffers\n", ring_count);

  struct pollfd pfds[MAX_CPUS];
  for (int i = 0; i < ring_count; i++) pfds[i] = (struct pollfd){.fd = rings[i].fd, .events = POLLIN};
  int status = 0;
  for (;;) {
    int n = poll(pfds, (nfds_t)ring_count, 100);
    if (n < 0 && errno != EINTR) die("poll");
    for (int i = 0; i < ring_count; i++) drain(&rings[i], out_fd);
    pid_t w = waitpid(child, &status, WNOHANG);
    if (w == child) break;
    if (g_stop) {
      kill(child, SIGTERM);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
  }
  for (int i = 0; i < ring_count; i++) drain(&rings[i], out_fd);
  if (close(out_fd) != 0) die("cannot close the output file");

  fprintf(stderr, "bare_sampler: samples=%llu lost=%llu bytes=%llu\n", (unsigned long long)g_samples,
          (unsigned long long)g_lost, (unsigned long long)g_bytes);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
