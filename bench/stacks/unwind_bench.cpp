// How long record/stacks/dwarf_unwinder takes per sampled stack. The
// stacks are this program's own: a recursion `depth` calls deep, then a
// capture of the registers and of 8 KiB of stack from %rsp, as
// PERF_SAMPLE_REGS_USER / PERF_SAMPLE_STACK_USER give them at a probe hit.
//   warm: one unwinder, the same process over and over (the steady state of
//         a recording: modules loaded, CFI parsed, pcs seen before)
//   cold: a new unwinder per stack (the first hit of a process: its files
//         opened, their CFI located)
#include <benchmark/benchmark.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/proc_maps.h"
#include "record/stacks/dwarf_unwinder.h"

namespace {

using usdt::record::DwarfUnwinder;
using usdt::record::ProcessMappings;
using usdt::record::UnwindRegisters;

constexpr size_t kStackCopy = 8192;

struct Captured {
  UnwindRegisters regs;
  std::vector<uint8_t> stack;
};

uint64_t stack_top() {
  pthread_attr_t attr;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  return reinterpret_cast<uint64_t>(addr) + size;
}

__attribute__((noinline, noipa)) int capture(Captured* out) {
  uint64_t r[8];
  asm volatile(
      "lea 0(%%rip), %%rax\n\t"
      "mov %%rax, 0(%0)\n\t"
      "mov %%rsp, 8(%0)\n\t"
      "mov %%rbp, 16(%0)\n\t"
      "mov %%rbx, 24(%0)\n\t"
      "mov %%r12, 32(%0)\n\t"
      "mov %%r13, 40(%0)\n\t"
      "mov %%r14, 48(%0)\n\t"
      "mov %%r15, 56(%0)\n\t"
      :
      : "r"(r)
      : "rax", "memory");
  const int dwarf[8] = {16, 7, 6, 3, 12, 13, 14, 15};
  out->regs = {};
  for (int i = 0; i < 8; ++i) {
    out->regs.value[dwarf[i]] = r[i];
    out->regs.valid |= 1u << dwarf[i];
  }
  const uint64_t top = stack_top();
  const size_t n = std::min<uint64_t>(kStackCopy, top - r[1]);
  const auto* from = reinterpret_cast<const uint8_t*>(r[1]);
  out->stack.assign(from, from + n);
  return static_cast<int>(n & 1);
}

__attribute__((noinline, noipa)) int recurse(Captured* out, int depth) {
  volatile char pad[48];  // a frame of some size, as real code has
  pad[0] = static_cast<char>(depth);
  int v = depth <= 0 ? capture(out) : recurse(out, depth - 1);
  return v + pad[0];
}

ProcessMappings self_mappings() {
  ProcessMappings maps;
  auto entries = usdt::read_proc_maps(getpid());
  if (!entries) return maps;
  for (const usdt::MapEntry& e : *entries) {
    if (e.perms.size() < 3 || e.perms[2] != 'x') continue;
    maps.add({e.start, e.end, e.offset, e.path.empty() ? "//anon" : e.path, ""});
  }
  return maps;
}

void BM_UnwindWarm(benchmark::State& state) {
  Captured c;
  recurse(&c, static_cast<int>(state.range(0)));
  const ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  std::vector<uint64_t> frames;
  frames.reserve(256);
  const uint32_t pid = static_cast<uint32_t>(getpid());
  unwinder.unwind(pid, maps, c.regs, c.stack.data(), c.stack.size(), 256, &frames);
  size_t depth = frames.size();
  for (auto _ : state) {
    frames.clear();
    bool truncated =
        unwinder.unwind(pid, maps, c.regs, c.stack.data(), c.stack.size(), 256, &frames);
    benchmark::DoNotOptimize(truncated);
  }
  state.counters["frames"] = static_cast<double>(depth);
  state.counters["ns_per_frame"] =
      benchmark::Counter(static_cast<double>(depth) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_UnwindWarm)->Arg(4)->Arg(10)->Arg(16);

void BM_UnwindCold(benchmark::State& state) {
  Captured c;
  recurse(&c, static_cast<int>(state.range(0)));
  const ProcessMappings maps = self_mappings();
  std::vector<uint64_t> frames;
  const uint32_t pid = static_cast<uint32_t>(getpid());
  for (auto _ : state) {
    DwarfUnwinder unwinder;
    frames.clear();
    bool truncated =
        unwinder.unwind(pid, maps, c.regs, c.stack.data(), c.stack.size(), 256, &frames);
    benchmark::DoNotOptimize(truncated);
  }
  state.counters["frames"] = static_cast<double>(frames.size());
}
BENCHMARK(BM_UnwindCold)->Arg(10)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
