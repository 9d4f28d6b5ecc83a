// Writes a few small valid traces into a directory, as the fuzzer's seed
// corpus: different record kinds, argument shapes, chunk sizes, a trace cut
// short, one without any chunk, traces and chunks with string arguments,
// (1.3) traces and chunks with call stacks, mmap process events and object
// blocks, and (1.4) traces with probe sites added during the recording.
//   usage: make_seeds DIR
#include <cstdio>
#include <deque>
#include <random>
#include <string>

#include "formats/chunk_codec.h"
#include "formats/trace_writer.h"

using namespace usdt::format;

namespace {

// Strings the seeds point their string arguments to: ASCII, empty, invalid
// UTF-8, with a NUL, and long.
const std::string kTexts[] = {"hello", "", std::string("\xff\xfe\xc3\x28", 4),
                              std::string("a\0b", 3), std::string(300, 'x')};

// The string arguments of the fuzzer's chunk mode (trace_reader_fuzz.cpp):
// bit i of kChunkStringMasks[site] says argument i of site is a string.
const std::vector<uint16_t> kChunkStringMasks = {0, 0b1, 0b10, 0b101, 0x801};

std::vector<ProbeSite> sites(int n, bool strings = false) {
  std::vector<ProbeSite> out;
  for (int i = 0; i < n; ++i) {
    ProbeSite s;
    s.id = static_cast<uint32_t>(i);
    s.path = "/bin/p";
    s.provider = "prov";
    s.name = "n" + std::to_string(i);
    for (int a = 0; a < i % 4; ++a) {
      ArgDescriptor d;
      d.spec = "8@%rdi";
      d.is_string = strings && a % 2 == 1;  // the second argument of sites 2 and 3
      if (d.is_string) d.source = usdt::ArgSource::kernel_read;
      s.args.push_back(d);
    }
    out.push_back(s);
  }
  return out;
}

// A few stacks that events share (so that chunks dedupe them), one
// truncated, one deeper than the format keeps.
std::vector<std::vector<uint64_t>> seed_stacks() {
  std::vector<std::vector<uint64_t>> out = {{0x401000, 0x401200, 0x7f0000001000},
                                            {0x401010},
                                            {0x7f0000002000, 0x400f00, 0x401234, 0x7fff0000}};
  std::vector<uint64_t> deep(kMaxStackDepth + 10);
  for (size_t i = 0; i < deep.size(); ++i) deep[i] = 0x401000 + 16 * (i % 7);
  out.push_back(std::move(deep));
  return out;
}

// Events of seeds with stacks take stack rng % (count + 1): the last means none.
void pick_stack(Event& e, uint64_t r, const std::vector<std::vector<uint64_t>>& stacks) {
  size_t k = r % (stacks.size() + 1);
  if (k == stacks.size()) return;
  e.stack = stacks[k].data();
  e.stack_depth = static_cast<uint16_t>(stacks[k].size());
  e.stack_truncated = k == 2;
}

ProcessEvent seed_mmap(uint64_t t, uint64_t address, const char* path, const char* build_id) {
  ProcessEvent p;
  p.time_ns = t;
  p.kind = ProcessEventKind::mmap;
  p.pid = p.tid = 5;
  p.map_address = address;
  p.map_length = 0x3000;
  p.map_file_offset = 0x1000;
  p.path = path;
  p.build_id = build_id;
  return p;
}

// added: a third of the way in, sites 4 and 5 are added (an added probe
// sites block, 1.4) and events of all six follow.
bool write_seed(const std::string& path, uint64_t seed, int events, size_t chunk_bytes, bool finish,
                bool strings = false, bool stacks = false, bool added = false) {
  std::mt19937_64 rng(seed);
  TraceMetadata m;
  m.hostname = "h";
  m.arch = "x86_64";
  m.start_monotonic_ns = 1000;
  WriterOptions opt;
  opt.chunk_bytes = chunk_bytes;
  auto site_table = sites(4, strings);
  std::deque<StringArg> string_args;
  auto w = TraceWriter::create(path, m, site_table, opt);
  if (!w) return false;
  uint64_t t = 1000;
  const auto stack_table = seed_stacks();
  if (stacks) {
    if (!w->append(seed_mmap(t, 0x400000, "/bin/p", "abcd01"))) return false;
    if (!w->append(seed_mmap(t, 0x7f0000000000, "/lib/libc.so.6", ""))) return false;
    ObjectTable o;
    o.build_id = "abcd01";
    o.path = "/bin/p";
    o.symbols = {{0x1200, 0x40, "main"}, {0x1000, 0x20, "_Z1av"}, {0x1010, 0, "b"}};
    if (!w->add_object(o)) return false;
    o.build_id.clear();
    o.path = "/lib/libc.so.6";
    o.symbols = {{0x1000, 0x100, "__libc_start_main"}};
    if (!w->add_object(o)) return false;
  }
  uint32_t site_count = 4;
  for (int i = 0; i < events; ++i) {
    t += rng() % 1000;
    if (added && i == events / 3) {
      std::vector<ProbeSite> more = sites(6, strings);
      more.erase(more.begin(), more.begin() + 4);
      if (!w->add_sites(more, t)) return false;
      site_table.insert(site_table.end(), more.begin(), more.end());
      site_count = 6;
    }
    if (stacks && i % 29 == 7) {
      if (!w->append(seed_mmap(t, 0x7f0000100000, "/lib/libdl.so", "ef"))) return false;
    } else if (i % 17 == 3) {
      if (!w->append(ProcessEvent{t, ProcessEventKind::exec, 5, 5, 1, 1, "comm"})) return false;
    } else if (i % 23 == 5) {
      if (!w->append(LostEvent{t - 50, t, 1, i % 2 ? kNoSite : 2, 9})) return false;
    } else {
      Event e;
      e.time_ns = t - rng() % 300;  // a little disorder across CPUs
      e.site_id = static_cast<uint32_t>(rng() % site_count);
      e.pid = 5;
      e.tid = 5 + static_cast<uint32_t>(rng() % 2);
      e.cpu = static_cast<uint32_t>(rng() % 2);
      e.arg_count = static_cast<uint8_t>(e.site_id % 4);
      e.missing_mask = static_cast<uint16_t>(rng() % 8 == 0 ? 1 : 0);
      for (int a = 0; a < e.arg_count; ++a) e.args[a] = i + rng() % 10;
      for (int a = 0; a < e.arg_count; ++a) {
        if (!site_table[e.site_id].args[a].is_string) continue;
        e.string_mask = static_cast<uint16_t>(e.string_mask | (1u << a));
        const std::string& text = kTexts[rng() % 5];
        string_args.push_back(StringArg{text, rng() % 4 == 0});
        e.args[a] = reinterpret_cast<uint64_t>(&string_args.back());
      }
      if (stacks) pick_stack(e, rng(), stack_table);
      if (!w->append(e)) return false;
    }
  }
  if (finish) {
    TraceSummary s;
    s.events = static_cast<uint64_t>(events);
    s.events_per_site = {1, 2, 3, 4};
    if (added) s.events_per_site = {1, 2, 3, 4, 5, 6};
    if (strings) s.dropped = {{"malformed", 3}, {"foreign_process", 120}, {"writer_refused", 0}};
    return w->finish(s).ok();
  }
  return w->flush().ok();
}

// A decompressed chunk payload, prefixed with 'C' (the fuzzer's chunk mode).
bool write_chunk_seed(const std::string& path, uint64_t seed, bool strings = false,
                      bool stacks = false) {
  std::mt19937_64 rng(seed);
  const auto stack_table = seed_stacks();
  ChunkBuilder b;
  std::deque<StringArg> string_args;
  for (int i = 0; i < 30; ++i) {
    Event e;
    e.time_ns = 1000 + rng() % 5000;
    e.site_id = static_cast<uint32_t>(rng() % 5);
    e.arg_count =
        static_cast<uint8_t>(std::min<uint64_t>(rng() % 4, e.site_id == 4 ? 12 : e.site_id));
    e.missing_mask = static_cast<uint16_t>(rng() % 2);
    for (int a = 0; a < e.arg_count; ++a) e.args[a] = rng() % 50;
    if (strings) {
      e.string_mask = static_cast<uint16_t>(kChunkStringMasks[e.site_id] & ~e.missing_mask &
                                            ((1u << e.arg_count) - 1));
      for (int a = 0; a < e.arg_count; ++a) {
        if (!(e.string_mask & (1u << a))) continue;
        string_args.push_back(StringArg{kTexts[rng() % 5], rng() % 2 == 0});
        e.args[a] = reinterpret_cast<uint64_t>(&string_args.back());
      }
    }
    if (stacks) pick_stack(e, rng(), stack_table);
    b.add(e);
  }
  b.add(ProcessEvent{2000, ProcessEventKind::comm, 1, 2, 0, 0, "name"});
  if (stacks) b.add(seed_mmap(2100, 0x400000, "/bin/p", "abcd01"));
  b.add(LostEvent{1500, 2500, 0, kNoSite, 4});
  std::string payload;
  b.encode(payload);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fputc('C', f) != EOF &&
            std::fwrite(payload.data(), 1, payload.size(), f) == payload.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = write_seed(dir + "/empty", 1, 0, 1000, true) &&
            write_seed(dir + "/one_chunk", 2, 40, 1 << 20, true) &&
            write_seed(dir + "/many_chunks", 3, 120, 200, true) &&
            write_seed(dir + "/no_footer", 4, 60, 300, false) &&
            write_seed(dir + "/tiny_chunks", 5, 20, 1, true) &&
            write_seed(dir + "/strings", 8, 150, 400, true, true) &&
            write_seed(dir + "/strings_no_footer", 9, 50, 1 << 20, false, true) &&
            write_chunk_seed(dir + "/chunk_a", 6) && write_chunk_seed(dir + "/chunk_b", 7) &&
            write_chunk_seed(dir + "/chunk_strings", 10, true) &&
            write_seed(dir + "/stacks", 11, 150, 600, true, true, true) &&
            write_seed(dir + "/stacks_no_footer", 12, 60, 1 << 20, false, false, true) &&
            write_chunk_seed(dir + "/chunk_stacks", 13, false, true) &&
            write_seed(dir + "/added_sites", 14, 120, 500, true, true, false, true) &&
            write_seed(dir + "/added_sites_no_footer", 15, 60, 300, false, false, false, true);
  if (!ok) {
    std::fprintf(stderr, "make_seeds: error: cannot write the seed traces in '%s'\n", dir.c_str());
    return 1;
  }
  return 0;
}
