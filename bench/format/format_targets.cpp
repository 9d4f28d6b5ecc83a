// Measures the format's targets on the synthetic loop stream and
// says whether each is met: bytes per event on disk (<= 3), write speed with
// compression (>= 2 million events/s), read speed through TraceReader
// (>= 30 million events/s on one core). Speeds are judged on the thread's CPU
// time, which is what "on one core" means and what stays meaningful on a
// shared, noisy machine; wall-clock rates are printed alongside.
//   usage: format_targets [EVENTS] [ZSTD_LEVEL] [CHUNK_BYTES]
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/format/synthetic_stream.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"

using namespace usdt::format;

namespace {

// Wall-clock and thread CPU time, in seconds.
struct Clock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = thread_cpu();
  static double thread_cpu() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
  }
  double wall_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  }
  double cpu_s() const { return thread_cpu() - cpu; }
};

void line(const char* what, double value, const char* unit, const char* op, double target, bool met,
          const char* extra = "") {
  std::printf("%-26s %8.2f %-13s target %s %-3.0f %-8s%s\n", what, value, unit, op, target,
              met ? "met" : "NOT MET", extra);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  int level = argc > 2 ? std::atoi(argv[2]) : 3;
  size_t chunk_bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : WriterOptions{}.chunk_bytes;
  char path[] = "/tmp/usdt-format-targets-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("format_targets: error: mkstemp");
    return 1;
  }
  close(fd);

  WriterOptions options;
  options.zstd_level = level;
  options.chunk_bytes = chunk_bytes;
  Clock write_clock;
  {
    auto w =
        TraceWriter::create(path, bench::synthetic_metadata(), bench::synthetic_sites(), options);
    if (!w) {
      std::fprintf(stderr, "format_targets: error: %s\n", w.error().message().c_str());
      return 1;
    }
    bench::SyntheticStream stream;
    for (uint64_t i = 0; i < events; ++i) {
      if (auto s = w->append(stream.next()); !s) {
        std::fprintf(stderr, "format_targets: error: %s\n", s.error().message().c_str());
        return 1;
      }
    }
    TraceSummary summary;
    summary.events = events;
    if (auto s = w->finish(summary); !s) {
      std::fprintf(stderr, "format_targets: error: %s\n", s.error().message().c_str());
      return 1;
    }
  }
  double write_cpu = write_clock.cpu_s(), write_wall = write_clock.wall_s();

  uint64_t file_size = 0;
  uint64_t read_events = 0, checksum = 0;
  Clock read_clock;
  {
    auto r = TraceReader::open(path);
    if (!r) {
      std::fprintf(stderr, "format_targets: error: %s\n", r.error().message().c_str());
      return 1;
    }
    while (r->next()) {
      const Event& e = r->event();
      checksum += e.args[0] ^ e.time_ns;
      ++read_events;
    }
  }
  double read_cpu = read_clock.cpu_s(), read_wall = read_clock.wall_s();
  if (FILE* f = std::fopen(path, "rb")) {
    std::fseek(f, 0, SEEK_END);
    file_size = static_cast<uint64_t>(std::ftell(f));
    std::fclose(f);
  }
  unlink(path);
  if (read_events != events) {
    std::fprintf(stderr, "format_targets: error: read %llu events of %llu\n",
                 (unsigned long long)read_events, (unsigned long long)events);
    return 1;
  }

  double bpe = double(file_size) / double(events);
  double wps = double(events) / write_cpu / 1e6;
  double rps = double(events) / read_cpu / 1e6;
  char wextra[64], rextra[64];
  std::snprintf(wextra, sizeof wextra, "(wall clock: %.2f M ev/s)",
                double(events) / write_wall / 1e6);
  std::snprintf(rextra, sizeof rextra, "(wall clock: %.2f M ev/s)",
                double(events) / read_wall / 1e6);
  std::printf(
      "synthetic loop stream: %llu events, zstd level %d, chunks of %zu bytes, "
      "file %llu bytes (checksum %llx)\n",
      (unsigned long long)events, level, chunk_bytes, (unsigned long long)file_size,
      (unsigned long long)checksum);
  line("size on disk", bpe, "bytes/event", "<=", 3, bpe <= 3);
  line("write (with compression)", wps, "M ev/s (CPU)", ">=", 2, wps >= 2, wextra);
  line("read (TraceReader::next)", rps, "M ev/s (CPU)", ">=", 30, rps >= 30, rextra);
  return 0;
}
