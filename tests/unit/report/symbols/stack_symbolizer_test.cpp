// StackSymbolizer: mappings replayed in record order, object blocks matched
// by build-id or path, names demangled, return addresses looked up at - 1.
#include "report/symbols/stack_symbolizer.h"

#include <catch2/catch.hpp>

using namespace usdt::report;
namespace fmt = usdt::format;

namespace {

fmt::ProcessEvent mmap_event(uint32_t pid, uint64_t address, uint64_t length, uint64_t offset,
                             std::string path, std::string build_id = "") {
  fmt::ProcessEvent p;
  p.kind = fmt::ProcessEventKind::mmap;
  p.pid = pid;
  p.tid = pid;
  p.map_address = address;
  p.map_length = length;
  p.map_file_offset = offset;
  p.path = std::move(path);
  p.build_id = std::move(build_id);
  return p;
}

fmt::ProcessEvent lifecycle(fmt::ProcessEventKind kind, uint32_t pid, uint32_t tid,
                            uint32_t parent_pid = 0) {
  fmt::ProcessEvent p;
  p.kind = kind;
  p.pid = pid;
  p.tid = tid;
  p.parent_pid = parent_pid;
  p.parent_tid = parent_pid;
  return p;
}

fmt::ObjectTable object(std::string build_id, std::string path,
                        std::vector<fmt::ObjectSymbol> symbols) {
  fmt::ObjectTable t;
  t.build_id = std::move(build_id);
  t.path = std::move(path);
  t.symbols = std::move(symbols);
  return t;
}

std::vector<TraceFileInfo> one_file(std::vector<fmt::ObjectTable> objects) {
  std::vector<TraceFileInfo> files(1);
  files[0].object_tables = std::make_shared<std::vector<fmt::ObjectTable>>(std::move(objects));
  return files;
}

}  // namespace

TEST_CASE("a frame resolves to its symbol, demangled, with offsets of the recorded address") {
  auto files = one_file(
      {object("aa", "/usr/bin/app", {{0x1000, 0x20, "main"}, {0x1100, 0x40, "_ZN2ns4workEi"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(7, 0x400000, 0x10000, 0x1000, "/usr/bin/app", "aa"));
  MappingsRef m = s.mappings(0, 7);
  REQUIRE(m);
  const FrameSymbol& f = s.resolve(m.get(), 0x400108, false);  // file offset 0x1108
  CHECK(f.has_symbol);
  CHECK(f.function == "ns::work(int)");
  CHECK(f.symbol_offset == 8);
  CHECK(f.object == "/usr/bin/app");
  CHECK(f.file_offset == 0x1108);
  CHECK(f.label() == "ns::work(int)+0x8");
}

TEST_CASE("return addresses are looked up one byte before, but shown as recorded") {
  // A call as the last instruction of main: its return address is the
  // first byte of the next function.
  auto files =
      one_file({object("aa", "/bin/app", {{0x1000, 0x20, "main"}, {0x1020, 0x20, "next"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(1, 0x1000, 0x1000, 0x1000, "/bin/app", "aa"));
  MappingsRef m = s.mappings(0, 1);
  const uint64_t stack[] = {0x1020, 0x1020};
  CHECK(s.resolve_frame(m.get(), stack, 0).function == "next");  // the ip itself
  const FrameSymbol& caller = s.resolve_frame(m.get(), stack, 1);
  CHECK(caller.function == "main");
  CHECK(caller.symbol_offset == 0x20);
}

TEST_CASE("no symbol prints object+0xOFFSET, no mapping [unknown]") {
  auto files = one_file({object("aa", "/lib/libx.so.1", {{0x1000, 0x10, "f"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(1, 0x7f0000000000, 0x4000, 0, "/lib/libx.so.1", "aa"));
  s.on_process(0, mmap_event(1, 0x500000, 0x1000, 0, "/opt/nosyms", "bb"));
  MappingsRef m = s.mappings(0, 1);
  const FrameSymbol& past = s.resolve(m.get(), 0x7f0000002345, false);  // after f's size
  CHECK_FALSE(past.has_symbol);
  CHECK(past.function == "libx.so.1+0x2345");
  CHECK(past.label() == "libx.so.1+0x2345");
  CHECK(s.resolve(m.get(), 0x500010, false).function == "nosyms+0x10");
  const FrameSymbol& none = s.resolve(m.get(), 0x10, false);
  CHECK_FALSE(none.mapped);
  CHECK(none.function == "[unknown]");
  CHECK(s.resolve(nullptr, 0x500010, false).function == "[unknown]");
  CHECK(s.mappings(0, 2) == nullptr);
}

TEST_CASE("objects match by build-id, else by path") {
  auto files = one_file({object("b1", "/lib/a.so", {{0, 0, "from_b1"}}),
                         object("", "/lib/a.so", {{0, 0, "from_path"}}),
                         object("b2", "/lib/c.so", {{0, 0, "from_b2"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(1, 0x1000, 0x1000, 0, "/lib/a.so", "b1"));
  s.on_process(0, mmap_event(1, 0x3000, 0x1000, 0, "/lib/a.so"));  // no build-id: path
  s.on_process(
      0, mmap_event(1, 0x5000, 0x1000, 0, "/somewhere/else.so", "b2"));  // build-id wins over path
  s.on_process(
      0, mmap_event(1, 0x7000, 0x1000, 0, "/lib/c.so", "unknown-id"));  // same path, other file
  s.on_process(0, mmap_event(1, 0x9000, 0x1000, 0, "/lib/c.so"));  // path of a block with an id
  MappingsRef m = s.mappings(0, 1);
  CHECK(s.resolve(m.get(), 0x1010, false).function == "from_b1");
  CHECK(s.resolve(m.get(), 0x3010, false).function == "from_path");
  CHECK(s.resolve(m.get(), 0x5010, false).function == "from_b2");
  CHECK(s.resolve(m.get(), 0x7010, false).function == "c.so+0x10");
  CHECK(s.resolve(m.get(), 0x9010, false).function == "from_b2");
}

TEST_CASE("a new mapping replaces the one it overlaps, from its time on") {
  auto files = one_file({object("a", "/lib/a.so", {{0, 0x100, "in_a"}, {0x1000, 0x100, "a_tail"}}),
                         object("b", "/lib/b.so", {{0, 0x100, "in_b"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(1, 0x10000, 0x2000, 0, "/lib/a.so", "a"));
  MappingsRef before = s.mappings(0, 1);
  // dlclose(a) then dlopen(b) at the same address: only the first page.
  s.on_process(0, mmap_event(1, 0x10000, 0x1000, 0, "/lib/b.so", "b"));
  MappingsRef after = s.mappings(0, 1);
  CHECK(s.resolve(before.get(), 0x10010, false).function == "in_a");  // kept by an earlier event
  CHECK(s.resolve(after.get(), 0x10010, false).function == "in_b");
  // The rest of a's mapping keeps its file offset.
  CHECK(s.resolve(after.get(), 0x11010, false).function == "a_tail");
  CHECK(s.resolve(after.get(), 0x11010, false).file_offset == 0x1010);
  CHECK(after->mappings.size() == 2);
}

TEST_CASE("fork copies the parent's mappings, exec ends them, threads change nothing") {
  auto files =
      one_file({object("a", "/bin/a", {{0, 0, "fa"}}), object("b", "/bin/b", {{0, 0, "fb"}})});
  StackSymbolizer s(files);
  s.on_process(0, mmap_event(10, 0x1000, 0x1000, 0, "/bin/a", "a"));
  s.on_process(0, lifecycle(fmt::ProcessEventKind::fork, 10, 11, 10));  // a thread
  s.on_process(0, lifecycle(fmt::ProcessEventKind::fork, 20, 20, 10));  // a process
  REQUIRE(s.mappings(0, 20));
  CHECK(s.resolve(s.mappings(0, 20).get(), 0x1010, false).function == "fa");
  // The child's exec ends its mappings, not the parent's.
  s.on_process(0, lifecycle(fmt::ProcessEventKind::exec, 20, 20));
  CHECK(s.mappings(0, 20) == nullptr);
  s.on_process(0, mmap_event(20, 0x1000, 0x1000, 0, "/bin/b", "b"));
  CHECK(s.resolve(s.mappings(0, 20).get(), 0x1010, false).function == "fb");
  CHECK(s.resolve(s.mappings(0, 10).get(), 0x1010, false).function == "fa");
  // Per file: pid 10 of another file is another process.
  CHECK(s.mappings(1, 10) == nullptr);
}
