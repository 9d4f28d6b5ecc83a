// Writes visual.trace, the trace the pictures are checked on (flamegraph,
// heatmap and html in a browser: tests/browser/), with the real format
// writer and fixed content: a shop server of 30 worker processes running
// SQL statements, shop:query_start(query, client) and shop:query_done(query)
// with string arguments whose literals differ (so that --by 'sql(arg0)'
// groups them), durations from 20 us to 40 ms over 2 s, and call stacks
// through the program, libc and another library.
//
// With "after", the same server after a change: UPDATEs come twice as often
// (the differential flame graph's test: their frames grow, the others shrink).
//
// usage: make_visual_trace FILE [after]
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "formats/trace_writer.h"

namespace fmt = usdt::format;

namespace {

constexpr uint64_t kStart = 5000000000000ull;            // CLOCK_MONOTONIC, 5000 s
constexpr uint64_t kRealStart = 1767225600000000000ull;  // 2026-01-01 00:00:00 UTC
constexpr uint32_t kWorkers = 30;
constexpr uint32_t kQueries = 1500;
constexpr uint64_t kProgram = 0x400000, kLibc = 0x7f0000000000, kLibssl = 0x7f0000200000;

// A fixed sequence: the same trace on every machine.
struct Sequence {
  uint64_t state = 88172645463325252ull;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

fmt::ArgDescriptor string_arg() {
  fmt::ArgDescriptor d;
  d.spec = "8@%rdi";
  d.size = 8;
  d.is_string = true;
  d.location = usdt::ArgLocation::reg;
  d.source = usdt::ArgSource::kernel_read;
  return d;
}

fmt::ArgDescriptor int_arg() {
  fmt::ArgDescriptor d;
  d.spec = "-4@%esi";
  d.size = 4;
  d.is_signed = true;
  d.location = usdt::ArgLocation::reg;
  d.source = usdt::ArgSource::sampled_register;
  return d;
}

std::vector<fmt::ProbeSite> shop_sites() {
  std::vector<fmt::ProbeSite> sites(2);
  for (uint32_t i = 0; i < 2; ++i) {
    sites[i].id = i;
    sites[i].kind = fmt::ProbeKind::usdt;
    sites[i].path = "/opt/shop/bin/shop";
    sites[i].build_id = "5409";
    sites[i].provider = "shop";
    sites[i].name = i == 0 ? "query_start" : "query_done";
    sites[i].file_offset = 0x1100 + i * 0x10;
    sites[i].args = i == 0 ? std::vector<fmt::ArgDescriptor>{string_arg(), int_arg()}
                           : std::vector<fmt::ArgDescriptor>{string_arg()};
  }
  return sites;
}

// The statement of kind k with the sequence's literals; its base duration.
std::string statement(uint64_t k, Sequence& seq, uint64_t* base_us) {
  const std::string a = std::to_string(seq.below(100000)), b = std::to_string(seq.below(50) + 1);
  switch (k) {
    case 0:
      *base_us = 40;
      return "SELECT name, price FROM items WHERE id = " + a;
    case 1:
      *base_us = 300;
      return "UPDATE stock SET n = n - " + b + " WHERE item = " + a;
    case 2:
      *base_us = 500;
      return "INSERT INTO orders (item, qty, note) VALUES (" + a + ", " + b + ", 'web')";
    case 3:
      *base_us = 120;
      return "select name from items where id in (" + a + ", " + b + ", 7)";
    case 4:
      *base_us = 20;
      return "BEGIN";
    default:
      *base_us = 60;
      return "COMMIT";
  }
}

// Call stacks (innermost first: the probe's own function, then return
// addresses) of a statement's start and of its end.
std::vector<uint64_t> start_stack(uint64_t k) {
  const uint64_t plan = kProgram + 0x1411, parse = kProgram + 0x1311, run = kProgram + 0x1211;
  const uint64_t serve = kProgram + 0x1111, main = kProgram + 0x1011;
  if (k == 0 || k == 3)
    return {kProgram + 0x1508, plan, run, serve, main};          // in shop::Engine::scan()
  if (k == 1) return {kLibc + 0x2008, parse, run, serve, main};  // in malloc
  if (k == 2) return {kProgram + 0x1308, run, serve, main};      // in parse_sql
  return {kProgram + 0x1208, serve, main};                       // in run_query
}

std::vector<uint64_t> end_stack(uint64_t k) {
  const uint64_t ssl = kLibssl + 0x5011, send = kProgram + 0x1611, serve = kProgram + 0x1111;
  const uint64_t main = kProgram + 0x1011;
  if (k == 2) return {kLibc + 0x3008, ssl, send, serve, main};  // in write, under SSL_write
  return {kLibssl + 0x5008, send, serve, main};                 // in SSL_write
}

bool write(const char* path, bool after) {
  fmt::TraceMetadata m;
  m.hostname = "shop-host";
  m.kernel_release = "6.18.0-visual";
  m.arch = "x86_64";
  m.page_size = 4096;
  m.command_line = "usdt-record -g -e shop:* -o visual.trace -- ./shop";
  m.recorder_version = "0.1.0";
  m.start_monotonic_ns = kStart;
  m.start_realtime_ns = kRealStart;
  auto w = fmt::TraceWriter::create(path, m, shop_sites());
  if (!w) {
    std::fprintf(stderr, "make_visual_trace: %s\n", w.error().message().c_str());
    return false;
  }
  const fmt::ObjectTable program{"5409",
                                 "/opt/shop/bin/shop",
                                 {{0x1000, 0x100, "main"},
                                  {0x1100, 0x100, "serve_request"},
                                  {0x1200, 0x100, "run_query"},
                                  {0x1300, 0x100, "parse_sql"},
                                  {0x1400, 0x100, "plan_query"},
                                  {0x1500, 0x100, "_ZN4shop6Engine4scanEv"},
                                  {0x1600, 0x100, "send_result"}}};
  const fmt::ObjectTable libc{"c0c0",
                              "/usr/lib/x86_64-linux-gnu/libc.so.6",
                              {{0x2000, 0x100, "malloc"}, {0x3000, 0x100, "write"}}};
  const fmt::ObjectTable libssl{
      "55e1", "/usr/lib/x86_64-linux-gnu/libssl.so.3", {{0x5000, 0x100, "SSL_write"}}};
  for (const fmt::ObjectTable* o : {&program, &libc, &libssl}) {
    if (!w->add_object(*o)) return false;
  }
  for (uint32_t p = 0; p < kWorkers; ++p) {
    fmt::ProcessEvent comm;
    comm.time_ns = kStart;
    comm.kind = fmt::ProcessEventKind::comm;
    comm.pid = comm.tid = 2000 + p;
    comm.comm = "shop-worker";
    if (!w->append(comm)) return false;
    for (const auto& [base, id, file] :
         {std::tuple{kProgram, "5409", "/opt/shop/bin/shop"},
          std::tuple{kLibc, "c0c0", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
          std::tuple{kLibssl, "55e1", "/usr/lib/x86_64-linux-gnu/libssl.so.3"}}) {
      fmt::ProcessEvent map = comm;
      map.kind = fmt::ProcessEventKind::mmap;
      map.comm.clear();
      map.map_address = base;
      map.map_length = 0x10000;
      map.map_file_offset = 0;
      map.build_id = id;
      map.path = file;
      if (!w->append(map)) return false;
    }
  }
  // Each worker runs its statements one after another; events are appended
  // in time order across workers.
  struct Pending {
    uint64_t time;
    uint32_t pid;
    uint64_t kind;
    std::string text;
    bool start;
  };
  Sequence seq;
  std::vector<Pending> events;
  std::vector<uint64_t> now(kWorkers, 0);
  for (uint32_t q = 0; q < kQueries; ++q) {
    const uint32_t worker = static_cast<uint32_t>(seq.below(kWorkers));
    const uint64_t draw = seq.below(after ? 7 : 6);
    const uint64_t kind = after && draw == 6 ? 1 : draw;
    uint64_t base_us = 0;
    std::string text = statement(kind, seq, &base_us);
    // Mostly near the base, a tail 10 times slower, rare outliers of 40 ms.
    uint64_t us = base_us + seq.below(base_us);
    if (seq.below(20) == 0) us *= 10;
    if (seq.below(400) == 0) us = 40000;
    now[worker] += 200 + seq.below(2400);
    events.push_back({kStart + now[worker] * 1000, 2000 + worker, kind, text, true});
    now[worker] += us;
    events.push_back({kStart + now[worker] * 1000, 2000 + worker, kind, text, false});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Pending& a, const Pending& b) { return a.time < b.time; });
  fmt::TraceSummary summary;
  summary.events_per_site = {0, 0};
  summary.lost_per_site = {0, 0};
  for (const Pending& p : events) {
    const std::vector<uint64_t> stack = p.start ? start_stack(p.kind) : end_stack(p.kind);
    fmt::StringArg text{p.text, false};
    fmt::Event e;
    e.time_ns = p.time;
    e.pid = e.tid = p.pid;
    e.cpu = p.pid % 2;
    e.site_id = p.start ? 0 : 1;
    e.arg_count = p.start ? 2 : 1;
    e.string_mask = 1;
    e.args[0] = reinterpret_cast<uintptr_t>(&text);
    if (p.start) e.args[1] = p.pid % 7;
    e.stack = stack.data();
    e.stack_depth = static_cast<uint16_t>(stack.size());
    if (!w->append(e)) return false;
    ++summary.events_per_site[e.site_id];
    ++summary.events;
  }
  summary.end_monotonic_ns = events.back().time + 1000;
  return static_cast<bool>(w->finish(summary));
}

}  // namespace

int main(int argc, char** argv) {
  const bool after = argc == 3 && std::string(argv[2]) == "after";
  if (argc != 2 && !after) {
    std::fprintf(stderr, "usage: make_visual_trace FILE [after]\n");
    return 2;
  }
  return write(argv[1], after) ? 0 : 1;
}
