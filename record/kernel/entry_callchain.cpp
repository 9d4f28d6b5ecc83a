#include "record/kernel/entry_callchain.h"

#include <unistd.h>

#include <vector>

#include "common/proc_maps.h"
#include "record/kernel/perf_event.h"
#include "record/kernel/ring_buffer.h"
#include "record/kernel/sample_decoder.h"

// The probed function starts with push %rbp, as the kernel's guess wants;
// its caller sets up a frame first, so that a kernel that does not guess
// walks from there to the caller's caller, never to the return address.
// Written in assembly: a compiler may leave out the push or use endbr64.
extern "C" {
void usdt_entry_probe_caller();
void usdt_entry_probe_target();
extern const char usdt_entry_probe_return[];
}
__asm__(
    ".pushsection .text\n"
    ".p2align 4\n"
    ".globl usdt_entry_probe_target\n"
    ".hidden usdt_entry_probe_target\n"
    ".type usdt_entry_probe_target, @function\n"
    "usdt_entry_probe_target:\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  pop %rbp\n"
    "  ret\n"
    ".size usdt_entry_probe_target, .-usdt_entry_probe_target\n"
    ".p2align 4\n"
    ".globl usdt_entry_probe_caller\n"
    ".hidden usdt_entry_probe_caller\n"
    ".type usdt_entry_probe_caller, @function\n"
    "usdt_entry_probe_caller:\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  call usdt_entry_probe_target\n"
    ".globl usdt_entry_probe_return\n"
    ".hidden usdt_entry_probe_return\n"
    "usdt_entry_probe_return:\n"
    "  pop %rbp\n"
    "  ret\n"
    ".size usdt_entry_probe_caller, .-usdt_entry_probe_caller\n"
    ".popsection\n");

namespace usdt::record {

Result<bool> probe_entry_caller_in_callchain(const KernelFeatures& features) {
  const auto target = reinterpret_cast<uint64_t>(&usdt_entry_probe_target);
  const pid_t self = getpid();
  Result<std::vector<MapEntry>> maps = read_proc_maps(self);
  if (!maps) return maps.error().context("cannot find the recorder's own code");
  const MapEntry* code = nullptr;
  for (const MapEntry& m : *maps) {
    if (target >= m.start && target < m.end) code = &m;
  }
  if (code == nullptr || code->path.empty()) {
    return Error("cannot find the recorder's own code in /proc/self/maps");
  }
  UprobeConfig config;
  // The mapped file itself, also if its path now names another one.
  config.path = map_files_path(static_cast<uint32_t>(self), code->start, code->end - code->start);
  config.file_offset = target - code->start + code->offset;
  config.callchain_depth = 4;
  config.label = "the recorder's own test uprobe (does the kernel name an entry's caller?)";
  EventTarget thread;
  thread.pid = 0;  // this thread only
  EventOptions options;
  options.identifier = false;
  Result<PerfEvent> event = PerfEvent::open_uprobe(features, config, thread, options);
  if (!event) return event.error();
  Result<RingBuffer> ring = RingBuffer::map(event->fd(), 1);
  if (!ring) return ring.error();
  if (Status s = event->enable(); !s) return s.error();
  usdt_entry_probe_caller();
  if (Status s = event->disable(); !s) return s.error();

  SiteDecoding site;
  site.callchain = true;
  SampleDecoder decoder({site}, false);
  ring->begin_read();
  while (const perf_event_header* record = ring->next()) {
    if (decoder.decode(record) != SampleDecoder::Kind::event) continue;
    const Callchain& chain = decoder.sample_callchain();
    std::vector<uint64_t> user;
    for (uint64_t i = 0; i < chain.nr; ++i) {
      if (chain.at(i) < static_cast<uint64_t>(PERF_CONTEXT_MAX)) user.push_back(chain.at(i));
    }
    return user.size() >= 2 && user[1] == reinterpret_cast<uint64_t>(usdt_entry_probe_return);
  }
  return Error("the recorder's own test uprobe wrote no sample");
}

}  // namespace usdt::record
