// Writes a synthetic trace of request pairs for the report benchmarks
//: bench:start(id, size) and bench:done(id, status) fired by 8
// threads, each request ending 1-50 us after it started, so that pairs span
// chunk boundaries. Usage: pair_trace FILE EVENTS [CHUNK_BYTES [BURST]]
// With BURST, every millionth event comes with a burst of BURST short-lived
// processes (fork, exec, three mmaps, exit each), as a build or a shell
// script spawns them: traces whose process records are many but lie in few
// chunks, which the reports' segments replay (report/input/process_history.h).
#include <cstdio>
#include <cstdlib>
#include <random>

#include "formats/trace_writer.h"

using namespace usdt::format;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pair_trace FILE EVENTS [CHUNK_BYTES [BURST]]\n");
    return 2;
  }
  uint64_t events = std::strtoull(argv[2], nullptr, 10);
  WriterOptions options;
  options.flush_interval_ms = 0;
  if (argc > 3) options.chunk_bytes = std::strtoull(argv[3], nullptr, 10);
  const uint64_t burst = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
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
  uint32_t next_pid = 2000;
  // A burst of short-lived processes started by the server at time now.
  auto spawn_burst = [&]() -> bool {
    for (uint64_t i = 0; i < burst; ++i) {
      const uint32_t pid = next_pid++;
      ProcessEvent p;
      p.time_ns = now++;
      p.kind = ProcessEventKind::fork;
      p.pid = p.tid = pid;
      p.parent_pid = p.parent_tid = 1000;
      p.comm = "server";
      bool ok = w->append(p).ok();
      p.kind = ProcessEventKind::exec;
      p.time_ns = now++;
      p.comm = "helper";
      ok = ok && w->append(p).ok();
      const char* paths[3] = {"/usr/bin/helper", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                              "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"};
      for (uint32_t m = 0; m < 3; ++m) {
        p.kind = ProcessEventKind::mmap;
        p.time_ns = now++;
        p.map_address = 0x400000 + uint64_t{m} * 0x10000000;
        p.map_length = 0x20000;
        p.path = paths[m];
        ok = ok && w->append(p).ok();
      }
      p.kind = ProcessEventKind::exit;
      p.time_ns = now++;
      p.path.clear();
      ok = ok && w->append(p).ok();
      if (!ok) return false;
    }
    return true;
  };
  for (uint64_t n = 0; n < events; ++n) {
    if (burst != 0 && n % 1000000 == 500000) {
      if (!batch.empty() && !w->append_events(batch)) return 1;
      batch.clear();
      if (!spawn_burst()) return 1;
    }
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
