// How a walk goes (the design of perf's util/unwind-libdw.c): one Dwfl per
// process, its modules from the process's executable mappings
// (unwind_modules.h), a thread state attached with callbacks that give the
// sampled registers and read memory from the stack copy only, then
// dwfl_getthread_frames, which calls us back for each frame.
//
// The fast path: libdw finds and decodes the CFI row of each pc once (cached
// per process); while every row on the way is a simple one (cfi_row.h) the
// walk steps through the rows itself. The first row that needs a DWARF
// expression sends the whole walk to libdwfl. Both paths accept or refuse a
// frame by the same rules (accept_frame).
//
// libdwfl, when it finds no CFI for a pc, falls back to following %rbp
// (elfutils backends/x86_64_unwind.c): a guess that invents frames in code
// built without frame pointers. We never let it: before either path unwinds
// from a frame, accept_frame checks that CFI covers the frame's pc (the same
// lookup libdwfl makes) and otherwise ends the walk there as truncated.
//
// Frames are reported as libdwfl gives them: frames[0] is the ip at the hit,
// every further frame the raw return address (the instruction after the
// call), not pc - 1; report/stack_symbolizer looks those up at address - 1.
//
// Not thread-safe: one DwarfUnwinder is used by one thread (libdwfl's
// handles are not safe for concurrent use either).
#include "record/stacks/dwarf_unwinder.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "common/arg_spec.h"
#include "record/kernel/sample_decoder.h"
#include "record/stacks/cfi_row.h"
#include "record/stacks/unwind_modules.h"

namespace usdt::record {
namespace {

constexpr size_t kMaxCachedPcs = 1 << 15;

// What the CFI says about unwinding from one pc (lookup address).
struct PcInfo {
  bool has_cfi = false;       // an FDE covers it: libdwfl will use CFI, not %rbp
  bool ra_undefined = false;  // the outermost frame (_start, thread start)
  bool signal_frame = false;  // the caller's pc is exact, not a return address
  CfiRow row;                 // for the fast path, when row.simple
};

PcInfo lookup_cfi(Dwarf_CFI* cfi, Dwarf_Addr address) {
  PcInfo info;
  Dwarf_Frame* frame = nullptr;
  if (cfi == nullptr || dwarf_cfi_addrframe(cfi, address, &frame) != 0) return info;
  info.has_cfi = true;
  bool signal = false;
  const int ra = dwarf_frame_info(frame, nullptr, nullptr, &signal);
  info.signal_frame = signal;
  info.row = read_cfi_row(frame);
  if (ra >= 0) {
    Dwarf_Op ops_mem[3];
    Dwarf_Op* ops = nullptr;
    size_t nops = 0;
    if (dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) == 0) {
      info.ra_undefined = nops == 0 && ops == ops_mem;
    }
  }
  std::free(frame);
  return info;
}

// One walk's inputs and results, reached from libdwfl's callbacks.
struct Walk {
  uint32_t tid = 0;
  bool thread_given = false;
  const UnwindRegisters* regs = nullptr;
  const uint8_t* stack = nullptr;
  size_t stack_size = 0;
  uint64_t stack_start = 0;  // the sampled rsp
  const ProcessMappings* maps = nullptr;
  std::unordered_map<uint64_t, PcInfo>* pc_info = nullptr;
  Dwfl* dwfl = nullptr;
  size_t max_depth = 0;
  std::vector<uint64_t>* frames = nullptr;
  size_t depth = 0;
  uint64_t last_sp = 0;
  bool last_sp_known = false;
  bool after_signal_frame = false;
  bool outermost = false;  // the walk reached a frame whose CFI ends the stack
  bool stopped = false;    // we ended the walk before the outermost frame
};

pid_t next_thread(Dwfl*, void* dwfl_arg, void** thread_argp) {
  auto* walk = static_cast<Walk*>(dwfl_arg);
  if (walk->thread_given) return 0;
  walk->thread_given = true;
  *thread_argp = walk;
  return static_cast<pid_t>(walk->tid);
}

bool get_thread(Dwfl*, pid_t tid, void* dwfl_arg, void** thread_argp) {
  auto* walk = static_cast<Walk*>(dwfl_arg);
  if (static_cast<uint32_t>(tid) != walk->tid) return false;
  *thread_argp = walk;
  return true;
}

// Only the stack copy is memory: anything else ends the walk.
bool memory_read(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* dwfl_arg) {
  auto* walk = static_cast<Walk*>(dwfl_arg);
  if (address < walk->stack_start) return false;
  const uint64_t offset = address - walk->stack_start;
  if (walk->stack_size < sizeof(Dwarf_Word) || offset > walk->stack_size - sizeof(Dwarf_Word)) {
    return false;
  }
  std::memcpy(result, walk->stack + offset, sizeof(Dwarf_Word));
  return true;
}

bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
  auto* walk = static_cast<Walk*>(thread_arg);
  const UnwindRegisters& regs = *walk->regs;
  for (unsigned n = 0; n < kDwarfRegs; ++n) {
    if ((regs.valid & (1u << n)) == 0) continue;
    const Dwarf_Word value = regs.value[n];
    if (!dwfl_thread_state_registers(thread, static_cast<int>(n), 1, &value)) return false;
  }
  dwfl_thread_state_register_pc(thread, regs.value[kDwarfRip]);
  return true;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
    .detach = nullptr,
    .thread_detach = nullptr,
};

// The CFI facts of a lookup address, computed once per process (the
// references stay valid: the map's nodes do not move).
const PcInfo& pc_info_of(Walk& walk, uint64_t lookup) {
  // Garbage return addresses that happen to land in code must not make the
  // cache grow without end (an entry is about 300 bytes).
  if (walk.pc_info->size() >= kMaxCachedPcs) walk.pc_info->clear();
  auto [it, inserted] = walk.pc_info->try_emplace(lookup);
  if (!inserted) return it->second;
  Dwfl_Module* module = dwfl_addrmodule(walk.dwfl, lookup);
  if (module == nullptr) return it->second;
  // The order libdwfl tries them in (__libdwfl_frame_unwind).
  Dwarf_Addr bias = 0;
  Dwarf_CFI* cfi = dwfl_module_eh_cfi(module, &bias);
  PcInfo info = lookup_cfi(cfi, lookup - bias);
  if (!info.has_cfi) {
    cfi = dwfl_module_dwarf_cfi(module, &bias);
    info = lookup_cfi(cfi, lookup - bias);
  }
  it->second = info;
  return it->second;
}

// Decides about a frame the walk reached, pc and (when known) its stack
// pointer: records it or not, and says whether the walk may go past it.
// Sets walk.outermost or walk.stopped when it may not; returns the frame's
// CFI facts when it may.
const PcInfo* accept_frame(Walk& walk, uint64_t pc, const uint64_t* sp) {
  const bool initial = walk.depth == 0;
  if (!initial) {
    // A return address outside every mapping is stack garbage.
    if (walk.maps->find(pc) == nullptr) {
      walk.stopped = true;
      return nullptr;
    }
    // Each caller's stack pointer lies above its callee's; anything else
    // is a loop or garbage.
    if (sp != nullptr) {
      if (walk.last_sp_known && *sp <= walk.last_sp) {
        walk.stopped = true;
        return nullptr;
      }
      walk.last_sp = *sp;
      walk.last_sp_known = true;
    }
  }
  walk.frames->push_back(pc);
  ++walk.depth;

  // libdwfl looks up a return address at pc - 1 (inside the call), the pc
  // of the first frame and of one a signal interrupted as is.
  const bool exact = initial || walk.after_signal_frame;
  const PcInfo& info = pc_info_of(walk, exact ? pc : pc - 1);
  if (info.has_cfi && info.ra_undefined) {
    walk.outermost = true;
    return nullptr;
  }
  if (!info.has_cfi || walk.depth >= walk.max_depth) {
    walk.stopped = true;
    return nullptr;
  }
  walk.after_signal_frame = info.signal_frame;
  return &info;
}

int frame_callback(Dwfl_Frame* state, void* arg) {
  auto& walk = *static_cast<Walk*>(arg);
  Dwarf_Addr pc = 0;
  // Not asking for isactivation: that would make libdwfl unwind the next
  // frame before accept_frame has checked that it may.
  if (!dwfl_frame_pc(state, &pc, nullptr)) {
    walk.stopped = true;
    return DWARF_CB_ABORT;
  }
  Dwarf_Word sp = 0;
  const bool has_sp = dwfl_frame_reg(state, kDwarfRsp, &sp) == 0;
  uint64_t sp64 = sp;
  return accept_frame(walk, pc, has_sp ? &sp64 : nullptr) ? DWARF_CB_OK : DWARF_CB_ABORT;
}

// The fast path. Returns false, leaving frames as they were, when a row on
// the way is not simple (the caller then walks with libdwfl).
bool fast_walk(Walk& walk) {
  const size_t before = walk.frames->size();
  FrameRegs regs;
  regs.value = walk.regs->value;
  regs.valid = walk.regs->valid & ((1u << kDwarfRegs) - 1);
  auto read = [&walk](uint64_t address, uint64_t* value) {
    return memory_read(nullptr, address, value, &walk);
  };
  uint64_t pc = regs.value[kDwarfRip];
  for (;;) {
    const uint64_t* sp = regs.has(kDwarfRsp) ? &regs.value[kDwarfRsp] : nullptr;
    const PcInfo* info = accept_frame(walk, pc, sp);
    if (info == nullptr) return true;
    if (!info->row.simple) {
      walk.frames->resize(before);
      return false;
    }
    FrameRegs caller;
    // As in libdwfl: no CFA, or no return address read, ends the walk;
    // a zero return address too (libdwfl takes it for the end, we for
    // garbage as likely as not).
    if (!step_cfi_row(info->row, regs, read, &caller) || !caller.has(kDwarfRip) ||
        caller.value[kDwarfRip] == 0) {
      walk.stopped = true;
      return true;
    }
    regs = caller;
    pc = regs.value[kDwarfRip];
  }
}

}  // namespace

UnwindRegisters unwind_registers_from_perf(const SampledRegs& regs) {
  // DWARF number -> perf number (arch/x86/include/uapi/asm/perf_regs.h).
  static constexpr int16_t kPerfOfDwarf[kDwarfRegs] = {
      x86_reg::ax,     x86_reg::dx,     x86_reg::cx,     x86_reg::bx,     x86_reg::si,
      x86_reg::di,     x86_reg::bp,     x86_reg::sp,     x86_reg::r8 + 0, x86_reg::r8 + 1,
      x86_reg::r8 + 2, x86_reg::r8 + 3, x86_reg::r8 + 4, x86_reg::r8 + 5, x86_reg::r8 + 6,
      x86_reg::r8 + 7, x86_reg::ip,
  };
  UnwindRegisters out;
  for (size_t n = 0; n < kDwarfRegs; ++n) {
    if (std::optional<uint64_t> v = regs.get(kPerfOfDwarf[n])) {
      out.value[n] = *v;
      out.valid |= 1u << n;
    }
  }
  return out;
}

struct DwarfUnwinder::Impl {
  struct Process {
    explicit Process(uint32_t pid) : modules(pid) {}
    UnwindModules modules;
    Dwfl* attached = nullptr;  // the Dwfl our thread callbacks are attached to
    Walk walk;                 // the callbacks' argument: lives as long as the Dwfl
    std::unordered_map<uint64_t, PcInfo> pc_info;
  };

  // The process's state, its modules in line with maps and attached; null
  // when libdwfl cannot unwind it at all (no module could be loaded).
  Process* prepare(uint32_t pid, const ProcessMappings& maps) {
    auto& slot = processes[pid];
    if (!slot) slot = std::make_unique<Process>(pid);
    Process& process = *slot;
    const UnwindModules::Change change = process.modules.sync(maps, layouts);
    if (change != UnwindModules::Change::none) process.pc_info.clear();
    // A new Dwfl may reuse the address of one freed before: compare nothing.
    if (change == UnwindModules::Change::rebuilt) process.attached = nullptr;
    Dwfl* dwfl = process.modules.dwfl();
    if (dwfl == nullptr || process.modules.module_count() == 0) return nullptr;
    if (process.attached != dwfl) {
      // With no Elf given, libdwfl takes the machine from the first module.
      if (!dwfl_attach_state(dwfl, nullptr, static_cast<pid_t>(pid), &kThreadCallbacks,
                             &process.walk)) {
        return nullptr;
      }
      process.attached = dwfl;
    }
    return &process;
  }

  LoadLayoutCache layouts;
  std::unordered_map<uint32_t, std::unique_ptr<Process>> processes;
};

DwarfUnwinder::DwarfUnwinder() : impl_(std::make_unique<Impl>()) {}
DwarfUnwinder::~DwarfUnwinder() = default;

bool DwarfUnwinder::unwind(uint32_t pid, const ProcessMappings& maps, const UnwindRegisters& regs,
                           const uint8_t* stack, size_t stack_size, size_t max_depth,
                           std::vector<uint64_t>* frames) {
  if (max_depth == 0) return true;
  const bool has_ip = (regs.valid & (1u << kDwarfRip)) != 0;
  const bool has_sp = (regs.valid & (1u << kDwarfRsp)) != 0;
  if (!has_ip) return true;
  const uint64_t ip = regs.value[kDwarfRip];
  Impl::Process* process = has_sp ? impl_->prepare(pid, maps) : nullptr;
  // The ip itself is exact whatever follows.
  if (process == nullptr || maps.find(ip) == nullptr) {
    frames->push_back(ip);
    return true;
  }

  Walk& walk = process->walk;
  auto start_walk = [&] {
    walk = Walk{};
    walk.tid = pid;
    walk.regs = &regs;
    walk.stack = stack;
    walk.stack_size = stack != nullptr ? stack_size : 0;
    walk.stack_start = regs.value[kDwarfRsp];
    walk.last_sp = regs.value[kDwarfRsp];
    walk.last_sp_known = true;
    walk.maps = &maps;
    walk.pc_info = &process->pc_info;
    walk.dwfl = process->modules.dwfl();
    walk.max_depth = max_depth;
    walk.frames = frames;
  };
  start_walk();
  if (fast_walk(walk)) return !walk.outermost;

  // A row needs an expression: the whole walk again, through libdwfl.
  start_walk();
  const size_t before = frames->size();
  // Its result says little we can trust: 0 also when the next return
  // address was zero (garbage as likely as an end), -1 when a read left the
  // copy. Only the CFI's "return address undefined", which frame_callback
  // saw, makes a complete walk.
  dwfl_getthread_frames(walk.dwfl, static_cast<pid_t>(pid), frame_callback, &walk);
  if (frames->size() == before) {
    // libdwfl refused the thread state: the ip is still known.
    frames->push_back(ip);
    return true;
  }
  return !walk.outermost;
}

void DwarfUnwinder::forget(uint32_t pid) { impl_->processes.erase(pid); }

}  // namespace usdt::record
