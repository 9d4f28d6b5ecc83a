#include "record/stacks/dwarf_unwinder.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "common/elf_file.h"
#include "common/proc_maps.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/kernel/sample_decoder.h"
#include "record/stacks/unwind_modules.h"
#include "tests/unit/record/stacks/unwind_chain.h"

using usdt::record::DwarfUnwinder;
using usdt::record::ExecMapping;
using usdt::record::ProcessMappings;
using usdt::record::UnwindRegisters;

namespace {

constexpr size_t kWholeStack = 1 << 24;  // capture copies up to the stack's top
constexpr size_t kPerfStack = 8192;      // what the recorder asks the kernel for

const uint32_t kSelf = static_cast<uint32_t>(getpid());

// This process's executable mappings, as the recorder would build them;
// keep(path) says which to add, build_id(path) the build-id each has as the
// kernel would give it (none by default).
template <typename Keep>
ProcessMappings self_mappings(
    Keep keep, const std::function<std::string(const std::string&)>& build_id = nullptr) {
  ProcessMappings maps;
  auto entries = usdt::read_proc_maps(getpid());
  REQUIRE(entries.ok());
  for (const usdt::MapEntry& e : *entries) {
    if (e.perms.size() < 3 || e.perms[2] != 'x') continue;
    std::string path = e.path.empty() ? "//anon" : e.path;
    if (!keep(path)) continue;
    maps.add({e.start, e.end, e.offset, path, build_id ? build_id(path) : ""});
  }
  return maps;
}
ProcessMappings self_mappings() {
  return self_mappings([](const std::string&) { return true; });
}

struct Walked {
  std::vector<uint64_t> frames;
  bool truncated = false;
};

Walked walk(DwarfUnwinder& unwinder, const ProcessMappings& maps, const CapturedStack& c,
            size_t stack_size = kWholeStack, size_t max_depth = 256) {
  Walked w;
  w.truncated = unwinder.unwind(kSelf, maps, c.regs, c.stack.data(),
                                std::min(stack_size, c.stack.size()), max_depth, &w.frames);
  return w;
}

std::string object_of(uint64_t address) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(address), &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

bool contains(const std::vector<uint64_t>& v, uint64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void require_all_mapped(const ProcessMappings& maps, const Walked& w) {
  for (uint64_t frame : w.frames) REQUIRE(maps.find(frame) != nullptr);
}

void require_chain(const CapturedStack& c, const Walked& w) {
  REQUIRE(w.frames.size() >= 4);
  CHECK(w.frames[0] == c.regs.value[16]);
  CHECK(w.frames[1] == c.ra_capture);
  CHECK(w.frames[2] == c.ra_b);
  CHECK(w.frames[3] == c.ra_a);
}

// The library that calls sort_caller's comparison function back (libc;
// libasan under ASan): the object of the stack's third frame.
std::string callback_library(const CapturedStack& c) {
  DwarfUnwinder reference;
  ProcessMappings all = self_mappings();
  Walked w = walk(reference, all, c);
  REQUIRE(w.frames.size() > 2);
  return all.find(w.frames[2])->path;
}

}  // namespace

TEST_CASE("a chain built with frame pointers at -O0 unwinds to the outermost frame") {
  CapturedStack c;
  unwind_chain_fp::chain_a(&c, kWholeStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked w = walk(unwinder, maps, c);
  require_chain(c, w);
  require_all_mapped(maps, w);
  // _start's CFI ends the stack: a complete walk, through main.
  CHECK_FALSE(w.truncated);
}

TEST_CASE("a chain at -O2 without frame pointers unwinds through its CFI") {
  CapturedStack c;
  unwind_chain_nofp::chain_a(&c, kWholeStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked w = walk(unwinder, maps, c);
  require_chain(c, w);
  require_all_mapped(maps, w);
  CHECK_FALSE(w.truncated);

  SECTION("an 8 KiB copy, as perf takes it, gives the same innermost frames") {
    Walked cut = walk(unwinder, maps, c, kPerfStack);
    require_chain(c, cut);
    REQUIRE(cut.frames.size() <= w.frames.size());
    REQUIRE(std::equal(cut.frames.begin(), cut.frames.end(), w.frames.begin()));
    if (cut.frames.size() < w.frames.size()) REQUIRE(cut.truncated);
  }
}

TEST_CASE("frames inside a shared library (libc's qsort calling back)") {
  CapturedStack c;
  unwind_chain_nofp::sort_caller(&c, kWholeStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked w = walk(unwinder, maps, c);
  REQUIRE(w.frames.size() >= 4);
  CHECK(w.frames[1] == c.ra_capture);
  // qsort's code in libc (in libasan under ASan, which intercepts qsort).
  INFO("frame 2 is in " << object_of(w.frames[2]));
  CHECK(object_of(w.frames[2]) != object_of(w.frames[1]));
  CHECK(object_of(w.frames[2]).find(".so") != std::string::npos);
  // Through libc and back into sort_caller, then its caller.
  CHECK(contains(w.frames, c.ra_a));
  require_all_mapped(maps, w);
  CHECK_FALSE(w.truncated);
}

TEST_CASE("through a signal frame (libc's trampoline, CFI with expressions)") {
  CapturedStack c;
  unwind_chain_nofp::signal_caller(&c, kWholeStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked w = walk(unwinder, maps, c);
  REQUIRE(w.frames.size() >= 4);
  CHECK(w.frames[1] == c.ra_capture);
  // The interrupted code in libc, then back into signal_caller and its caller.
  CHECK(contains(w.frames, c.ra_a));
  require_all_mapped(maps, w);
  CHECK_FALSE(w.truncated);
}

TEST_CASE("a damaged stack copy is truncated, never followed outside the mappings") {
  CapturedStack c;
  unwind_chain_nofp::chain_a(&c, kPerfStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked good = walk(unwinder, maps, c);
  REQUIRE(good.frames.size() >= 4);

  SECTION("0xff bytes over everything") {
    std::fill(c.stack.begin(), c.stack.end(), 0xff);
    Walked w = walk(unwinder, maps, c);
    REQUIRE(w.truncated);
    REQUIRE_FALSE(w.frames.empty());
    CHECK(w.frames[0] == c.regs.value[16]);
    require_all_mapped(maps, w);
  }
  SECTION("zeros over everything") {
    std::fill(c.stack.begin(), c.stack.end(), 0);
    Walked w = walk(unwinder, maps, c);
    REQUIRE(w.truncated);
    require_all_mapped(maps, w);
  }
  SECTION("random bytes past the first frames, many times") {
    std::mt19937_64 rng(42);
    // Keep capture's own frame so that the walk starts right.
    const size_t keep = std::min<size_t>(64, c.stack.size());
    for (int round = 0; round < 200; ++round) {
      CapturedStack damaged = c;
      for (size_t i = keep; i < damaged.stack.size(); ++i) damaged.stack[i] = rng() & 0xff;
      Walked w = walk(unwinder, maps, damaged);
      require_all_mapped(maps, w);
      REQUIRE(w.frames.size() <= 256);
    }
  }
  SECTION("return addresses pointing back into the chain (a loop)") {
    // Every word that held a return address of the chain now holds ra_b.
    for (size_t off = 0; off + 8 <= c.stack.size(); off += 8) {
      uint64_t word;
      std::memcpy(&word, c.stack.data() + off, 8);
      if (word == c.ra_b || word == c.ra_a) std::memcpy(c.stack.data() + off, &c.ra_capture, 8);
    }
    Walked w = walk(unwinder, maps, c);
    require_all_mapped(maps, w);
    REQUIRE(w.frames.size() < 256);
  }
}

TEST_CASE("a stack copy cut short ends the walk as truncated") {
  CapturedStack c;
  unwind_chain_nofp::chain_a(&c, kPerfStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked full = walk(unwinder, maps, c);

  Walked none = walk(unwinder, maps, c, 0);
  REQUIRE(none.truncated);
  REQUIRE(none.frames == std::vector<uint64_t>{c.regs.value[16]});

  Walked small = walk(unwinder, maps, c, 64);
  REQUIRE(small.truncated);
  REQUIRE(small.frames.size() < full.frames.size());
  REQUIRE(std::equal(small.frames.begin(), small.frames.end(), full.frames.begin()));
}

TEST_CASE("an ip in no mapping gives only the ip, truncated") {
  CapturedStack c;
  unwind_chain_nofp::chain_a(&c, kPerfStack);
  DwarfUnwinder unwinder;
  ProcessMappings no_code = self_mappings([](const std::string& path) { return path == "[vdso]"; });
  Walked w = walk(unwinder, no_code, c);
  REQUIRE(w.truncated);
  REQUIRE(w.frames == std::vector<uint64_t>{c.regs.value[16]});

  ProcessMappings maps = self_mappings();
  CapturedStack wild = c;
  wild.regs.value[16] = 0x10;  // nothing is mapped at page 0
  Walked w2 = walk(unwinder, maps, wild);
  REQUIRE(w2.truncated);
  REQUIRE(w2.frames == std::vector<uint64_t>{0x10});

  SECTION("anonymous code (a JIT) is a place the walk stops") {
    ProcessMappings jit;
    jit.add({0x10000, 0x20000, 0, "//anon", ""});
    CapturedStack j = c;
    j.regs.value[16] = 0x10010;
    Walked w3 = walk(unwinder, jit, j);
    REQUIRE(w3.truncated);
    REQUIRE(w3.frames == std::vector<uint64_t>{0x10010});
  }
}

TEST_CASE("max_depth is respected") {
  CapturedStack c;
  unwind_chain_fp::chain_a(&c, kWholeStack);
  ProcessMappings maps = self_mappings();
  DwarfUnwinder unwinder;
  Walked full = walk(unwinder, maps, c);
  REQUIRE(full.frames.size() > 4);
  for (size_t depth : {size_t{1}, size_t{2}, size_t{4}}) {
    Walked w = walk(unwinder, maps, c, kWholeStack, depth);
    REQUIRE(w.truncated);
    REQUIRE(w.frames.size() == depth);
    REQUIRE(std::equal(w.frames.begin(), w.frames.end(), full.frames.begin()));
  }
  std::vector<uint64_t> frames;
  REQUIRE(unwinder.unwind(kSelf, maps, c.regs, c.stack.data(), c.stack.size(), 0, &frames));
  REQUIRE(frames.empty());
  // Exactly deep enough: the outermost frame is reached, not truncated.
  Walked exact = walk(unwinder, maps, c, kWholeStack, full.frames.size());
  REQUIRE_FALSE(exact.truncated);
  REQUIRE(exact.frames == full.frames);
}

TEST_CASE("a change of the mappings (generation) is picked up; forget drops a process") {
  CapturedStack c;
  unwind_chain_nofp::sort_caller(&c, kWholeStack);
  const std::string library = callback_library(c);
  auto without_library = [&](const std::string& path) { return path != library; };
  DwarfUnwinder unwinder;
  // Without that library: the walk stops at its return address, which is in
  // no mapping yet.
  ProcessMappings maps = self_mappings(without_library);
  Walked before = walk(unwinder, maps, c);
  REQUIRE(before.truncated);
  REQUIRE(before.frames.size() == 2);
  REQUIRE(before.frames[1] == c.ra_capture);

  // The library appears (PERF_RECORD_MMAP2 of a dlopen, say): the same maps object,
  // a new generation.
  auto entries = usdt::read_proc_maps(getpid());
  REQUIRE(entries.ok());
  for (const usdt::MapEntry& e : *entries) {
    if (e.perms.size() >= 3 && e.perms[2] == 'x' && e.path == library) {
      maps.add({e.start, e.end, e.offset, e.path, ""});
    }
  }
  Walked after = walk(unwinder, maps, c);
  CHECK_FALSE(after.truncated);
  CHECK(contains(after.frames, c.ra_a));

  // A mapping that moves away makes the modules be rebuilt.
  ProcessMappings fewer = self_mappings(without_library);
  Walked again = walk(unwinder, fewer, c);
  REQUIRE(again.frames == before.frames);

  unwinder.forget(kSelf);
  unwinder.forget(12345678);  // never seen: nothing to do
  Walked fresh = walk(unwinder, maps, c);
  REQUIRE(fresh.frames == after.frames);
  REQUIRE(fresh.truncated == after.truncated);
}

TEST_CASE("a hit inside the vdso unwinds through the vdso's own CFI") {
  void* vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (vdso == nullptr) {
    WARN("no vdso in this process");
    return;
  }
  void* fn = dlsym(vdso, "__vdso_clock_gettime");
  dlclose(vdso);
  if (fn == nullptr) {
    WARN("no __vdso_clock_gettime");
    return;
  }
  // As if capture had just called the vdso function: the return address
  // pushed, the ip at the function's first instruction. capture is built
  // at -O0 (its CFA is %rbp-based there, so the instruction before its ip
  // has the same rule).
  CapturedStack c;
  unwind_chain_fp::chain_a(&c, kWholeStack);
  CapturedStack in_vdso = c;
  const uint64_t ra = c.regs.value[16];
  in_vdso.stack.insert(in_vdso.stack.begin(), reinterpret_cast<const uint8_t*>(&ra),
                       reinterpret_cast<const uint8_t*>(&ra) + 8);
  in_vdso.regs.value[7] -= 8;
  in_vdso.regs.value[16] = reinterpret_cast<uint64_t>(fn);

  ProcessMappings maps = self_mappings();
  REQUIRE(maps.find(reinterpret_cast<uint64_t>(fn))->path == "[vdso]");
  DwarfUnwinder unwinder;
  Walked w = walk(unwinder, maps, in_vdso);
  REQUIRE(w.frames.size() >= 5);
  CHECK(w.frames[0] == reinterpret_cast<uint64_t>(fn));
  CHECK(w.frames[1] == ra);
  CHECK(w.frames[2] == c.ra_capture);
  CHECK(w.frames[3] == c.ra_b);
  CHECK_FALSE(w.truncated);
}

TEST_CASE("perf's register numbering becomes DWARF's") {
  // perf: ax 0, bx 1, cx 2, dx 3, si 4, di 5, bp 6, sp 7, ip 8, r8-r15 16-23.
  // Sampled here: ax, bx, bp, sp, ip, r8, r15 (the mask's bit order).
  const uint64_t mask = (1ull << 0) | (1ull << 1) | (1ull << 6) | (1ull << 7) | (1ull << 8) |
                        (1ull << 16) | (1ull << 23);
  const uint64_t values[] = {100, 101, 106, 107, 108, 116, 123};
  usdt::record::SampledRegs regs;
  regs.set_layout(mask);
  regs.set_values(reinterpret_cast<const uint8_t*>(values), true);
  UnwindRegisters out = usdt::record::unwind_registers_from_perf(regs);
  const uint32_t want_valid =
      (1u << 0) | (1u << 3) | (1u << 6) | (1u << 7) | (1u << 16) | (1u << 8) | (1u << 15);
  REQUIRE(out.valid == want_valid);
  CHECK(out.value[0] == 100);   // rax
  CHECK(out.value[3] == 101);   // rbx
  CHECK(out.value[6] == 106);   // rbp
  CHECK(out.value[7] == 107);   // rsp
  CHECK(out.value[16] == 108);  // rip
  CHECK(out.value[8] == 116);   // r8
  CHECK(out.value[15] == 123);  // r15

  usdt::record::SampledRegs absent;
  absent.set_layout(mask);
  absent.set_values(reinterpret_cast<const uint8_t*>(values), false);
  REQUIRE(usdt::record::unwind_registers_from_perf(absent).valid == 0);
}

TEST_CASE("a process gone: its files are read by their paths only when the build-ids agree") {
  CapturedStack c;
  unwind_chain_nofp::sort_caller(&c, kWholeStack);
  // A pid that no process has now: /proc/PID/root is gone, as for a
  // process that exited before its samples were unwound.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  const uint32_t gone = static_cast<uint32_t>(child);

  const std::string library = callback_library(c);
  auto elf = usdt::ElfFile::open(library);
  REQUIRE(elf.ok());
  const std::string real_id = usdt::record::elf_build_id(elf->get());
  REQUIRE(!real_id.empty());

  // mappings with the library's build-id as the kernel gave it, or another.
  auto mappings_with = [&](const std::string& id) {
    return self_mappings([](const std::string&) { return true; },
                         [&](const std::string& path) { return path == library ? id : ""; });
  };
  auto walk_gone = [&](const ProcessMappings& maps) {
    DwarfUnwinder unwinder;
    Walked w;
    w.truncated =
        unwinder.unwind(gone, maps, c.regs, c.stack.data(), c.stack.size(), 256, &w.frames);
    return w;
  };
  Walked same = walk_gone(mappings_with(real_id));
  CHECK(contains(same.frames, c.ra_a));  // through the library, read by its path
  // Another file under the library's name (another mount namespace): its
  // tables are not used, and the walk stops at the library's first frame.
  Walked other = walk_gone(mappings_with(std::string(real_id.size(), '0')));
  CHECK(other.truncated);
  CHECK_FALSE(contains(other.frames, c.ra_a));
  REQUIRE(other.frames.size() >= 3);
  CHECK(other.frames[2] == same.frames[2]);
}

TEST_CASE("a file that could not be opened through one path is read through another") {
  // A process's /proc/PID/root/PATH vanishes when it exits, possibly between
  // the check that it exists and the open; the plain path of the same file
  // (the same cache key: path and build-id) must still give its layout.
  CapturedStack c;
  unwind_chain_nofp::sort_caller(&c, kWholeStack);
  const std::string library = callback_library(c);
  auto elf = usdt::ElfFile::open(library);
  REQUIRE(elf.ok());
  ExecMapping mapping;
  mapping.path = library;
  mapping.build_id = usdt::record::elf_build_id(elf->get());
  REQUIRE(!mapping.build_id.empty());
  usdt::record::LoadLayoutCache layouts;
  CHECK(layouts.find(mapping, "/proc/999999999/root" + library) == nullptr);
  const usdt::record::ElfLoadLayout* layout = layouts.find(mapping, library);
  REQUIRE(layout != nullptr);
  CHECK_FALSE(layout->loads.empty());
  // A file that opens but is no ELF is remembered as having no layout.
  ExecMapping text;
  text.path = "/etc/hostname";
  text.build_id = std::string(40, '0');
  CHECK(layouts.find(text, text.path) == nullptr);
  CHECK(layouts.find(text, text.path) == nullptr);
}
