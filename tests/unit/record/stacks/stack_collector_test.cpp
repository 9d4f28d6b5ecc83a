#include "record/stacks/stack_collector.h"

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>
#include <vector>

#include "common/elf_file.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/kernel/perf_event.h"
#include "record/stacks/object_table.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// A -g fp sample of one site without identifier: pid, tid, time, cpu, then the chain.
std::vector<uint8_t> fp_sample(uint32_t pid, const std::vector<uint64_t>& chain,
                               uint64_t time = 1000) {
  std::vector<uint8_t> bytes(sizeof(perf_event_header));
  auto put = [&](const void* p, size_t n) {
    size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
  };
  uint32_t cpu = 0, res = 0;
  uint64_t nr = chain.size();
  put(&pid, 4);
  put(&pid, 4);
  put(&time, 8);
  put(&cpu, 4);
  put(&res, 4);
  put(&nr, 8);
  for (uint64_t a : chain) put(&a, 8);
  perf_event_header h{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(bytes.size())};
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}

format::ProcessEvent process(format::ProcessEventKind kind, uint32_t pid, uint32_t parent = 0) {
  format::ProcessEvent e;
  e.kind = kind;
  e.pid = e.tid = pid;
  e.parent_pid = e.parent_tid = parent;
  return e;
}

format::ProcessEvent mmap(uint32_t pid, uint64_t start, uint64_t length, const std::string& path,
                          const std::string& build_id) {
  format::ProcessEvent e = process(format::ProcessEventKind::mmap, pid);
  e.map_address = start;
  e.map_length = length;
  e.map_file_offset = 0x1000;
  e.path = path;
  e.build_id = build_id;
  return e;
}

struct Fp {
  CallGraph graph;
  SampleDecoder decoder;
  std::unique_ptr<StackCollector> collector;
  explicit Fp(uint32_t depth) : decoder(sites(), false) {
    graph.mode = CallGraphMode::fp;
    graph.depth = depth;
    collector = std::move(*StackCollector::create(graph));
  }
  static std::vector<SiteDecoding> sites() {
    SiteDecoding d;
    d.callchain = true;
    return {d};
  }
  format::Event collect(uint32_t pid, const std::vector<uint64_t>& chain, uint64_t time = 1000) {
    std::vector<uint8_t> record = fp_sample(pid, chain, time);
    REQUIRE(decoder.decode(reinterpret_cast<const perf_event_header*>(record.data())) ==
            SampleDecoder::Kind::event);
    format::Event e = decoder.event();
    collector->collect(decoder.stack_inputs(), e);
    return e;
  }
};

const uint64_t kUser = static_cast<uint64_t>(PERF_CONTEXT_USER);

}  // namespace

TEST_CASE("fp stacks: the callchain's user entries, markers left out", "[stack_collector]") {
  Fp fp(127);
  // pid 1000001 "exec'd" during the recording: its mappings are complete.
  fp.collector->on_process(process(format::ProcessEventKind::exec, 1000001));
  fp.collector->on_process(mmap(1000001, 0x400000, 0x10000, "/bin/prog", "aabb"));
  fp.collector->on_process(mmap(1000001, 0x7f0000000000, 0x10000, "/lib/libc.so.6", ""));
  format::Event e = fp.collect(1000001, {kUser, 0x401000, 0x7f0000000100, 0x402000});
  REQUIRE(e.stack_depth == 3);
  CHECK(e.stack[0] == 0x401000);
  CHECK(e.stack[1] == 0x7f0000000100);
  CHECK(e.stack[2] == 0x402000);
  CHECK_FALSE(e.stack_truncated);
  std::vector<StackObject> objects = fp.collector->objects();
  REQUIRE(objects.size() == 2);
  CHECK(objects[0].path == "/bin/prog");
  CHECK(objects[0].build_id == "aabb");
  CHECK(objects[1].path == "/lib/libc.so.6");
  CHECK(fp.collector->take_seeded().empty());

  // A frame outside every mapping is kept (the report says [unknown]) but
  // names no object.
  e = fp.collect(1000001, {kUser, 0x401000, 0x999999});
  CHECK(e.stack_depth == 2);
  CHECK(fp.collector->objects().size() == 2);

  // An empty chain (a kernel thread): no stack.
  e = fp.collect(1000001, {});
  CHECK(e.stack_depth == 0);
  CHECK(e.stack == nullptr);
}

TEST_CASE("fp stacks: a chain as long as the depth is marked truncated", "[stack_collector]") {
  Fp fp(3);
  fp.collector->on_process(process(format::ProcessEventKind::exec, 1000002));
  format::Event e = fp.collect(1000002, {kUser, 1, 2});
  CHECK(e.stack_depth == 2);
  CHECK(e.stack_truncated);
  e = fp.collect(1000002, {kUser, 1});
  CHECK_FALSE(e.stack_truncated);
}

TEST_CASE("fp stacks: the caller of a site without a frame comes from the stack copy",
          "[stack_collector]") {
  CallGraph graph;
  graph.mode = CallGraphMode::fp;
  graph.depth = 4;
  // A leaf's USDT site: the caller's return address at 0(%rsp).
  SiteDecoding d;
  d.caller_repair.return_address_at = 0;
  UprobeConfig attach;
  add_stack_sampling(graph, attach, d);
  CHECK(attach.stack_bytes == 8);
  CHECK(d.stack_bytes == 8);
  CHECK(attach.regs_mask == 0);  // the CFI says %rbp is the caller's: nothing to check
  SampleDecoder decoder({d}, false);
  std::unique_ptr<StackCollector> collector = std::move(*StackCollector::create(graph));
  collector->on_process(process(format::ProcessEventKind::exec, 1000003));

  // Returns the frames; *truncated: the stack's mark.
  auto collect = [&](const std::vector<uint64_t>& chain, uint64_t top, bool* truncated) {
    std::vector<uint8_t> record = fp_sample(1000003, chain);
    // The stack copy: its size, the bytes, the bytes the kernel filled.
    const uint64_t size = 8;
    for (uint64_t v : {size, top, size}) {
      record.resize(record.size() + 8);
      std::memcpy(record.data() + record.size() - 8, &v, 8);
    }
    const uint16_t total = static_cast<uint16_t>(record.size());
    std::memcpy(record.data() + 6, &total, 2);
    REQUIRE(decoder.decode(reinterpret_cast<const perf_event_header*>(record.data())) ==
            SampleDecoder::Kind::event);
    format::Event e = decoder.event();
    collector->collect(decoder.stack_inputs(), e);
    *truncated = e.stack_truncated;
    return std::vector<uint64_t>(e.stack, e.stack + e.stack_depth);
  };
  bool truncated = true;
  // The kernel's chain: the ip in b, then main (read from a's frame).
  CHECK(collect({kUser, 0x401100, 0x401300}, 0x401200, &truncated) ==
        std::vector<uint64_t>{0x401100, 0x401200, 0x401300});
  CHECK_FALSE(truncated);
  // As many entries as the depth (a chain the kernel may have cut): kept
  // with the caller, marked truncated.
  CHECK(collect({kUser, 0x401100, 0x401300, 0x401400}, 0x401200, &truncated) ==
        std::vector<uint64_t>{0x401100, 0x401200, 0x401300, 0x401400});
  CHECK(truncated);
  // The caller makes one frame more than the depth: the outermost goes.
  CHECK(collect({0x401100, 0x401300, 0x401400, 0x401500}, 0x401200, &truncated) ==
        std::vector<uint64_t>{0x401100, 0x401200, 0x401300, 0x401400});
  CHECK(truncated);
}

TEST_CASE("mappings: exec clears, fork copies, exit drops at the end of the pass",
          "[stack_collector]") {
  Fp fp(127);
  fp.collector->on_process(process(format::ProcessEventKind::exec, 1000003));
  fp.collector->on_process(mmap(1000003, 0x400000, 0x1000, "/bin/a", "01"));
  fp.collector->on_process(process(format::ProcessEventKind::fork, 1000004, 1000003));
  fp.collector->on_process(process(format::ProcessEventKind::exec, 1000003));
  fp.collector->on_process(mmap(1000003, 0x400000, 0x1000, "/bin/b", "02"));
  fp.collect(1000004, {kUser, 0x400010});  // the child still has /bin/a
  fp.collect(1000003, {kUser, 0x400010});  // the parent now has /bin/b
  std::vector<StackObject> objects = fp.collector->objects();
  REQUIRE(objects.size() == 2);
  CHECK(objects[0].path == "/bin/a");
  CHECK(objects[1].path == "/bin/b");
  // Exit takes effect only after the pass: samples read in it still resolve.
  fp.collector->on_process(process(format::ProcessEventKind::exit, 1000004));
  fp.collect(1000004, {kUser, 0x400010});
  fp.collector->end_pass();
}

TEST_CASE("a pass's mapping records apply up to each sample's time, also out of order",
          "[stack_collector]") {
  // /lib/a.so mapped at 20, replaced by /lib/b.so at the same address at 50;
  // samples read in the order 60, 30 (another CPU's buffer), 70.
  Fp fp(127);
  auto at = [](format::ProcessEvent e, uint64_t time) {
    e.time_ns = time;
    return e;
  };
  fp.collector->begin_pass({at(process(format::ProcessEventKind::exec, 1000005), 10),
                            at(mmap(1000005, 0x7f0000000000, 0x1000, "/lib/a.so", "0a"), 20),
                            at(mmap(1000005, 0x7f0000000000, 0x1000, "/lib/b.so", "0b"), 50)});
  fp.collect(1000005, {kUser, 0x7f0000000010}, 60);
  fp.collect(1000005, {kUser, 0x7f0000000020}, 30);
  fp.collect(1000005, {kUser, 0x7f0000000030}, 70);
  fp.collector->end_pass();
  std::vector<StackObject> objects = fp.collector->objects();
  REQUIRE(objects.size() == 2);
  CHECK(objects[0].path == "/lib/b.so");
  CHECK(objects[0].offsets == std::vector<uint64_t>{0x1010, 0x1030});
  CHECK(objects[1].path == "/lib/a.so");
  CHECK(objects[1].offsets == std::vector<uint64_t>{0x1020});
  // After the pass every record is applied: the next pass starts from b.so.
  fp.collector->begin_pass({});
  fp.collect(1000005, {kUser, 0x7f0000000040}, 80);
  CHECK(fp.collector->objects()[0].offsets == std::vector<uint64_t>{0x1010, 0x1030, 0x1040});
}

TEST_CASE("a process first seen in a sample is seeded from /proc", "[stack_collector]") {
  Fp fp(127);
  uint32_t self = static_cast<uint32_t>(getpid());
  uint64_t here = reinterpret_cast<uint64_t>(&fp_sample);
  fp.collect(self, {kUser, here});
  std::vector<format::ProcessEvent> seeded = fp.collector->take_seeded();
  REQUIRE_FALSE(seeded.empty());
  bool found = false;
  for (const format::ProcessEvent& e : seeded) {
    CHECK(e.kind == format::ProcessEventKind::mmap);
    CHECK(e.time_ns == 999);  // just before the sample
    if (here >= e.map_address && here < e.map_address + e.map_length) {
      found = true;
      CHECK(e.path.find("stack_collector_test") != std::string::npos);
      CHECK_FALSE(e.build_id.empty());
    }
  }
  CHECK(found);
  REQUIRE(fp.collector->objects().size() == 1);
  CHECK(fp.collector->objects()[0].path.find("stack_collector_test") != std::string::npos);
}

namespace {

// A child process running path with args, killed and reaped at scope exit.
struct Running {
  pid_t pid = -1;
  Running(const std::string& path, std::vector<std::string> args) {
    pid = fork();
    if (pid == 0) {
      std::vector<char*> argv{const_cast<char*>(path.c_str())};
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(path.c_str(), argv.data());
      _exit(127);
    }
  }
  ~Running() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  // Whether it maps path executable yet, as the seeding reads it. (Not
  // /proc/PID/exe: execve sets it before it maps the file, and a check of
  // it alone failed 3 runs in 100.)
  bool maps(const std::string& path) const {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::string range, perms, line;
    while (maps >> range >> perms && std::getline(maps, line)) {
      const bool is_path = line.size() > path.size() &&
                           line.compare(line.size() - path.size(), path.size(), path) == 0;
      if (is_path && perms.size() > 2 && perms[2] == 'x') return true;
    }
    return false;
  }
};

// A directory of its own under /tmp, removed at scope exit (also when a
// REQUIRE fails).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char name[] = "/tmp/usdt-stack-collector-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const char* name) const { return (path / name).string(); }
};

std::string build_id_of_file(const std::string& path) {
  Result<ElfFile> elf = ElfFile::open(path);
  return elf ? elf_build_id(elf->get()) : "";
}

}  // namespace

TEST_CASE("a file replaced at the same path gets its own build-id when seeded",
          "[stack_collector]") {
  // Two processes map two different files under one path: the first one
  // and the file that replaced it (another inode). Each mapping must carry
  // its own file's build-id, or the second would be named and unwound with
  // the first one's symbols and tables.
  const TempDir dir;
  const std::string prog = dir.file("prog");
  const std::string first_id = build_id_of_file("/bin/sleep");
  const std::string second_id = build_id_of_file("/usr/bin/tail");
  REQUIRE_FALSE(first_id.empty());
  REQUIRE_FALSE(second_id.empty());
  REQUIRE(first_id != second_id);
  std::filesystem::copy_file("/bin/sleep", prog);
  Running first(prog, {"30"});
  std::filesystem::copy_file("/usr/bin/tail", dir.file("next"));
  for (int i = 0; i < 500 && !first.maps(prog); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(first.maps(prog));
  std::filesystem::rename(dir.file("next"), prog);  // a new inode at the same path
  Running second(prog, {"-f", "/dev/null"});
  for (int i = 0; i < 500 && !second.maps(prog); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(second.maps(prog));

  Fp fp(127);
  auto seeded_id = [&](pid_t pid) {
    fp.collect(static_cast<uint32_t>(pid), {kUser, 0x1234});
    std::string id = "(not seeded)";
    for (const format::ProcessEvent& e : fp.collector->take_seeded()) {
      if (e.path == prog) id = e.build_id;
    }
    return id;
  };
  CHECK(seeded_id(first.pid) == first_id);
  CHECK(seeded_id(second.pid) == second_id);
}

TEST_CASE("add_stack_sampling: what each mode adds to a site", "[stack_collector]") {
  CallGraph graph;
  UprobeConfig attach;
  SiteDecoding decoding;
  decoding.regs_mask = attach.regs_mask = 1u << 5;  // %rdi
  decoding.stack_bytes = attach.stack_bytes = 16;
  add_stack_sampling(graph, attach, decoding);
  CHECK(attach.callchain_depth == 0);
  CHECK(decoding.regs_mask == 1u << 5);

  graph.mode = CallGraphMode::fp;
  graph.depth = 50;
  add_stack_sampling(graph, attach, decoding);
  CHECK(attach.callchain_depth == 50);
  CHECK(decoding.callchain);
  CHECK(attach.stack_bytes == 16);

  graph.mode = CallGraphMode::dwarf;
  UprobeConfig attach2 = attach;
  attach2.callchain_depth = 0;
  SiteDecoding decoding2;
  decoding2.regs_mask = 1u << 5;
  decoding2.stack_bytes = 16;
  add_stack_sampling(graph, attach2, decoding2);
  CHECK(attach2.regs_mask == kUnwindRegsMask);
  CHECK(decoding2.regs_mask == kUnwindRegsMask);
  CHECK(attach2.stack_bytes == 8192);
  CHECK(decoding2.stack_bytes == 8192);
  CHECK_FALSE(decoding2.callchain);
}

TEST_CASE("ring size: -g dwarf grows the default, never an explicit one", "[stack_collector]") {
  CallGraph dwarf;
  dwarf.mode = CallGraphMode::dwarf;
  CallGraph fp;
  fp.mode = CallGraphMode::fp;
  CHECK(ring_buffer_pages(dwarf, 1024, false, 2, 4096) == 16384);    // 64 MiB a CPU
  CHECK(ring_buffer_pages(dwarf, 1024, false, 64, 4096) == 2048);    // 512 MiB in all
  CHECK(ring_buffer_pages(dwarf, 1024, false, 4096, 4096) == 1024);  // never below the default
  CHECK(ring_buffer_pages(dwarf, 8, true, 2, 4096) == 8);
  CHECK(ring_buffer_pages(fp, 1024, false, 2, 4096) == 1024);
}

TEST_CASE("-g dwarf needs the unwinder", "[stack_collector]") {
  CallGraph dwarf;
  dwarf.mode = CallGraphMode::dwarf;
  Result<std::unique_ptr<StackCollector>> c = StackCollector::create(dwarf);
  CHECK(c.ok() == dwarf_unwinding_available());
  if (!c.ok()) CHECK(c.error().message().find("-g dwarf is not available") != std::string::npos);
}

TEST_CASE("dwarf stacks: a damaged stack copy stops the walk, marked truncated",
          "[stack_collector]") {
  if (!dwarf_unwinding_available()) return;
  CallGraph graph;
  graph.mode = CallGraphMode::dwarf;
  graph.stack_bytes = 256;
  SiteDecoding d;
  UprobeConfig attach;
  add_stack_sampling(graph, attach, d);
  SampleDecoder decoder({d}, false);
  Result<std::unique_ptr<StackCollector>> collector = StackCollector::create(graph);
  REQUIRE(collector.ok());

  // A sample of this process: ip in this test's own code, a stack of garbage.
  const uint32_t self = static_cast<uint32_t>(getpid());
  const uint64_t ip = reinterpret_cast<uint64_t>(&fp_sample) + 4;
  // A fixed buffer: GCC 12 warns (-Wstringop-overflow) on growing a vector here.
  alignas(8) uint8_t bytes[1024] = {};
  size_t used = sizeof(perf_event_header);
  auto put = [&](const void* p, size_t n) {
    REQUIRE(used + n <= sizeof bytes);
    std::memcpy(bytes + used, p, n);
    used += n;
  };
  uint32_t cpu = 0, res = 0;
  uint64_t time = 5000, abi = PERF_SAMPLE_REGS_ABI_64;
  put(&self, 4);
  put(&self, 4);
  put(&time, 8);
  put(&cpu, 4);
  put(&res, 4);
  put(&abi, 8);
  uint8_t garbage[256];
  for (size_t i = 0; i < sizeof garbage; ++i) garbage[i] = static_cast<uint8_t>(0xa5 ^ (i * 7));
  const uint64_t sp = reinterpret_cast<uint64_t>(garbage);
  for (int reg = 0; reg < 24; ++reg) {
    if (reg >= 9 && reg < 16) continue;  // not in kUnwindRegsMask
    uint64_t v = reg == 8 ? ip : reg == 7 ? sp : 0x5a5a5a5a5a5a5a5aull;
    put(&v, 8);
  }
  uint64_t size = sizeof garbage;
  put(&size, 8);
  put(garbage, sizeof garbage);
  put(&size, 8);
  perf_event_header h{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(used)};
  std::memcpy(bytes, &h, sizeof h);

  REQUIRE(decoder.decode(reinterpret_cast<const perf_event_header*>(bytes)) ==
          SampleDecoder::Kind::event);
  format::Event e = decoder.event();
  (*collector)->collect(decoder.stack_inputs(), e);
  REQUIRE(e.stack_depth >= 1);
  CHECK(e.stack[0] == ip);
  CHECK(e.stack_truncated);
  CHECK_FALSE((*collector)->take_seeded().empty());  // seeded from /proc first
}

TEST_CASE("a gone process's mapping is read by its plain path only if the file did not change",
          "[stack_collector]") {
  // An mmap record carries no inode; once its process is gone, only the
  // plain path is left. The file there counts as the mapped one (its
  // build-id read, its symbols written) only when it has not changed since
  // the recording began: a file replaced at that path is a new inode with
  // a new ctime, and nothing else would tell the two apart.
  const TempDir dir;
  const std::string before = dir.file("before");
  const std::string after = dir.file("after");
  const std::string id = build_id_of_file("/bin/sleep");
  REQUIRE_FALSE(id.empty());
  std::filesystem::copy_file("/bin/sleep", before);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the coarse tick
  Fp fp(127);                                                  // the recording begins
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::filesystem::copy_file("/bin/sleep", after);
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  REQUIRE(waitpid(gone, nullptr, 0) == gone);
  const uint32_t pid = static_cast<uint32_t>(gone);

  format::ProcessEvent unchanged = mmap(pid, 0x400000, 0x1000, before, "");
  fp.collector->complete(unchanged);
  CHECK(unchanged.build_id == id);
  format::ProcessEvent changed = mmap(pid, 0x400000, 0x1000, after, "");
  fp.collector->complete(changed);
  CHECK(changed.build_id.empty());

  // The symbols: the same rule where the object has no build-id; with one,
  // the build-id decides.
  StackObject object;
  object.path = after;
  object.open_path = "/proc/" + std::to_string(pid) + "/root" + after;
  object.unchanged_since_ns = 1;  // long ago
  Result<format::ObjectTable> table = build_object_table(object);
  REQUIRE_FALSE(table.ok());
  CHECK(table.error().message().find("has changed since the recording began") != std::string::npos);
  object.unchanged_since_ns = 0;  // not known: never trusted
  CHECK_FALSE(build_object_table(object).ok());
  object.build_id = id;
  CHECK(build_object_table(object).ok());
  object.build_id.clear();
  object.unchanged_since_ns = std::numeric_limits<int64_t>::max();  // a recording not begun yet
  CHECK(build_object_table(object).ok());
}
