// What -g asks of each perf event (the callchain, or the registers and
// stack bytes an unwinder needs) and how big the ring buffers must be for
// it (stack_collector.h).
#include <algorithm>

#include "record/kernel/perf_event.h"
#include "record/stacks/fp_caller.h"
#include "record/stacks/stack_collector.h"

namespace usdt::record {

void add_stack_sampling(const CallGraph& graph, UprobeConfig& attach, SiteDecoding& decoding) {
  switch (graph.mode) {
    case CallGraphMode::none:
      return;
    case CallGraphMode::fp: {
      attach.callchain_depth = graph.depth;
      decoding.callchain = true;
      // A site whose caller the kernel's walk misses: the bytes (and
      // registers) that name it (record/stacks/fp_caller.h).
      const CallerRepair& repair = decoding.caller_repair;
      if (caller_repair_reads_registers(repair)) {
        const uint64_t frame_regs = uint64_t{1} << x86_reg::bp | uint64_t{1} << x86_reg::sp;
        attach.regs_mask = decoding.regs_mask = decoding.regs_mask | frame_regs;
      }
      const uint32_t bytes = std::max(decoding.stack_bytes, caller_repair_stack_bytes(repair));
      attach.stack_bytes = decoding.stack_bytes = bytes;
      return;
    }
    case CallGraphMode::dwarf: {
      // The sample's registers are in mask order: a bigger mask only moves
      // the argument registers' slots, which SampledRegs finds by number.
      uint64_t mask = decoding.regs_mask | kUnwindRegsMask;
      uint32_t bytes = std::max(decoding.stack_bytes, graph.stack_bytes);
      attach.regs_mask = decoding.regs_mask = mask;
      attach.stack_bytes = decoding.stack_bytes = bytes;
      return;
    }
  }
}

// perf record keeps its default ring (512 KiB a CPU, perf_event_mlock_kb)
// for --call-graph dwarf, and drops most samples of a tight loop (the
// benchmark bench/stacks/run.py shows how many). Ours unwinds each sample
// before it hands the space back (record/session/drainer.cpp hands it back
// every 64 records), and a sample is the stack copy plus registers (8 KiB
// and more): the default ring holds a few hundred, which bursts overflow.
// So -g dwarf gets 64 MiB a CPU (room for the drain thread to be
// descheduled on a busy machine), less per CPU on machines with many CPUs
// (512 MiB in all), never less than the default. An explicit
// --buffer-pages wins.
uint32_t ring_buffer_pages(const CallGraph& graph, uint32_t requested, bool given, size_t cpus,
                           size_t page_size) {
  if (given || graph.mode != CallGraphMode::dwarf || page_size == 0) return requested;
  constexpr uint64_t kPerCpuMax = 64ull << 20;
  constexpr uint64_t kTotal = 512ull << 20;
  uint64_t per_cpu = std::min(kPerCpuMax, kTotal / std::max<size_t>(cpus, 1));
  uint64_t pages = per_cpu / page_size;
  uint64_t pow2 = 1;
  while (pow2 * 2 <= pages) pow2 *= 2;
  return static_cast<uint32_t>(std::max<uint64_t>(pow2, requested));
}

}  // namespace usdt::record
