// Writes a synthetic trace of request pairs for the report benchmarks
// (issue 13): bench:start(id, size) and bench:done(id, status) fired by 8
// threads, each request ending 1-50 us after it started, so that pairs span
// chunk boundaries. Usage: pair_trace FILE EVENTS [CHUNK_BYTES]
#include <cstdio>
#include <cstdlib>
#include <random>

#include "formats/trace_writer.h"

using namespace usdt::format;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pair_trace FILE EVENTS [CHUNK_BYTES]\n");
    return 2;
  }
  uint64_t events = std::strtoull(argv[2], nullptr, 10);
  WriterOptions options;
  options.flush_interval_ms = 0;
  if (argc > 3) options.chunk_bytes = std::strtoull(argv[3], nullptr, 10);
  std::vector<ProbeSite> sites(2);
  for (uint32_t i = 0; i < 2; ++i) {
    sites[i].id = i;
    sites[i].path = "/usr/local/bin/server";
    sites[i].provider = "bench";
    sites[i].name = i == 0 ? "start" : "done";
    sites[i].file_offset = 0x1000 + i * 0x10;
    ArgDescriptor a;
    a.spec = "8@%rdi";
    a.location = usdt::ArgLocation::reg;
    a.source = usdt::ArgSource::sampled_register;
    sites[i].args = {a, a};
  }
  TraceMetadata m;
  m.hostname = "bench";
  m.kernel_release = "6.18";
  m.arch = "x86_64";
  m.page_size = 4096;
  m.command_line = "usdt-record -- ./server";
  m.recorder_version = "bench";
  m.start_monotonic_ns = 1'000'000'000;
  m.start_realtime_ns = 1'700'000'000'000'000'000;
  auto w = TraceWriter::create(argv[1], m, sites, options);
  if (!w) {
    std::fprintf(stderr, "pair_trace: %s\n", w.error().message().c_str());
    return 1;
  }
  for (uint32_t t = 0; t < 8; ++t) {
    ProcessEvent p;
    p.time_ns = m.start_monotonic_ns;
    p.pid = 1000;
    p.tid = 1000 + t;
    p.comm = "server";
    (void)w->append(p);
  }
  std::mt19937_64 rng(7);
  uint64_t now = m.start_monotonic_ns + 1000;
  uint64_t done_at[8] = {};
  uint64_t id[8] = {};
  bool open[8] = {};
  TraceSummary summary;
  summary.events_per_site.assign(2, 0);
  summary.lost_per_site.assign(2, 0);
  std::vector<Event> batch;
  for (uint64_t n = 0; n < events; ++n) {
    uint64_t r = rng();
    uint32_t t = static_cast<uint32_t>(r % 8);
    now += 100 + (r >> 8) % 200;
    Event e;
    e.time_ns = now;
    e.pid = 1000;
    e.tid = 1000 + t;
    e.cpu = t % 2;
    e.arg_count = 2;
    if (!open[t] || now >= done_at[t]) {
      e.site_id = open[t] ? 1 : 0;
      e.args[0] = open[t] ? id[t] : ++id[t];
      e.args[1] = (r >> 32) % 4096;
      if (!open[t]) done_at[t] = now + 1000 + (r >> 40) % 49000;
      open[t] = !open[t];
    } else {
      // Ends the open request early rather than nesting starts.
      e.site_id = 1;
      e.args[0] = id[t];
      e.args[1] = 0;
      open[t] = false;
    }
    ++summary.events_per_site[e.site_id];
    batch.push_back(e);
    if (batch.size() == 4096) {
      if (!w->append_events(batch)) return 1;
      batch.clear();
    }
  }
  if (!batch.empty() && !w->append_events(batch)) return 1;
  summary.events = events;
  summary.end_monotonic_ns = now + 1;
  if (auto s = w->finish(summary); !s) {
    std::fprintf(stderr, "pair_trace: %s\n", s.error().message().c_str());
    return 1;
  }
  return 0;
}
