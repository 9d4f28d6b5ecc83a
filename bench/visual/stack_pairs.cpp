// Writes a synthetic trace of request pairs with call stacks for the
// pictures' benchmark (bench/visual/run.sh): bench:start(id, size) and
// bench:done(id, status) fired by 8 threads of one process, each request
// ending 1-50 us after it started, every event with a call stack drawn from
// 256 distinct stacks 6 to 30 frames deep through the program, libc and a
// library (symbols in the trace's object blocks).
//
// usage: stack_pairs FILE EVENTS
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "formats/trace_writer.h"

using namespace usdt::format;

namespace {

constexpr uint64_t kProgram = 0x400000, kLibc = 0x7f0000000000, kLib = 0x7f0000400000;
constexpr uint32_t kFunctions = 200;  // per object

ObjectTable table(const char* id, const char* path, const char* prefix) {
  ObjectTable t{id, path, {}};
  for (uint32_t f = 0; f < kFunctions; ++f) {
    t.symbols.push_back(
        {0x1000 + uint64_t{f} * 0x100, 0x100, std::string(prefix) + std::to_string(f)});
  }
  return t;
}

std::vector<std::vector<uint64_t>> make_stacks(std::mt19937_64& rng) {
  std::vector<std::vector<uint64_t>> stacks;
  for (int s = 0; s < 256; ++s) {
    std::vector<uint64_t> frames;
    const uint64_t depth = 6 + rng() % 25;
    for (uint64_t d = 0; d < depth; ++d) {
      const uint64_t object = d + 2 >= depth ? rng() % 3 : 0;  // libraries near the top
      const uint64_t base = object == 0 ? kProgram : object == 1 ? kLibc : kLib;
      // Outer frames shared among stacks, inner ones spread: a tree.
      const uint64_t f = d < 3 ? d : (d * 31 + rng() % (d * 4)) % kFunctions;
      frames.push_back(base + 0x1000 + f * 0x100 + 0x11);
    }
    stacks.emplace_back(frames.rbegin(), frames.rend());  // innermost first
  }
  return stacks;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: stack_pairs FILE EVENTS\n");
    return 2;
  }
  const uint64_t events = std::strtoull(argv[2], nullptr, 10);
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
  m.command_line = "usdt-record -g -- ./server";
  m.recorder_version = "bench";
  m.start_monotonic_ns = 1'000'000'000;
  m.start_realtime_ns = 1'700'000'000'000'000'000;
  WriterOptions options;
  options.flush_interval_ms = 0;
  auto w = TraceWriter::create(argv[1], m, sites, options);
  if (!w) {
    std::fprintf(stderr, "stack_pairs: %s\n", w.error().message().c_str());
    return 1;
  }
  const ObjectTable objects[3] = {table("b1", "/usr/local/bin/server", "server_fn_"),
                                  table("c1", "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc_fn_"),
                                  table("d1", "/usr/lib/x86_64-linux-gnu/libfoo.so.1", "foo_fn_")};
  const uint64_t bases[3] = {kProgram, kLibc, kLib};
  ProcessEvent comm;
  comm.time_ns = m.start_monotonic_ns;
  comm.kind = ProcessEventKind::comm;
  comm.pid = comm.tid = 1000;
  comm.comm = "server";
  if (!w->append(comm)) return 1;
  for (int o = 0; o < 3; ++o) {
    if (!w->add_object(objects[o])) return 1;
    ProcessEvent map = comm;
    map.kind = ProcessEventKind::mmap;
    map.map_address = bases[o];
    map.map_length = 0x100000;
    map.build_id = objects[o].build_id;
    map.path = objects[o].path;
    if (!w->append(map)) return 1;
  }
  std::mt19937_64 rng(7);
  const std::vector<std::vector<uint64_t>> stacks = make_stacks(rng);
  uint64_t now = m.start_monotonic_ns + 1000, done_at[8] = {}, id[8] = {};
  bool open[8] = {};
  TraceSummary summary;
  summary.events_per_site.assign(2, 0);
  summary.lost_per_site.assign(2, 0);
  std::vector<Event> batch;
  for (uint64_t n = 0; n < events; ++n) {
    const uint64_t r = rng();
    uint32_t t = static_cast<uint32_t>(r % 8);
    // A thread whose request is not due yet lets another one start, so that
    // every start is paired (when all 8 are busy, t's ends early).
    for (uint32_t k = 1; k < 8 && open[t] && now < done_at[t]; ++k) {
      if (!open[(t + k) % 8]) t = (t + k) % 8;
    }
    now += 100 + (r >> 8) % 200;
    Event e;
    e.time_ns = now;
    e.pid = 1000;
    e.tid = 1000 + t;
    e.cpu = t % 2;
    e.arg_count = 2;
    e.site_id = open[t] ? 1 : 0;
    if (!open[t]) {
      id[t] = n;
      // Mostly 1-5 us, a tail to 50 us, now and then 2 ms.
      const uint64_t spread = (r >> 20) % 100;
      done_at[t] = now + 1000 + (spread < 80 ? spread * 50 : spread < 99 ? spread * 500 : 2000000);
    }
    e.args[0] = id[t];
    e.args[1] = (r >> 40) % 4096;
    open[t] = !open[t];
    const std::vector<uint64_t>& s = stacks[(r >> 32) % stacks.size()];
    e.stack = s.data();
    e.stack_depth = static_cast<uint16_t>(s.size());
    batch.push_back(e);
    ++summary.events_per_site[e.site_id];
    ++summary.events;
    if (batch.size() == 4096) {
      if (!w->append_events(batch)) return 1;
      batch.clear();
    }
  }
  if (!batch.empty() && !w->append_events(batch)) return 1;
  summary.end_monotonic_ns = now + 1;
  return w->finish(summary) ? 0 : 1;
}
