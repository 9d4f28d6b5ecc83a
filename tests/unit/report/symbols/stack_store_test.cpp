// StackStore: an event's stack number is the same whether it is found by the
// reader's stack key (the per-event path) or by the addresses; a stack under
// other mappings (another process, or after an mmap) is another number.
#include "report/symbols/stack_store.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using namespace usdt::report;
namespace fmt = usdt::format;

namespace {

fmt::ProcessEvent mmap_event(uint32_t pid, uint64_t address) {
  fmt::ProcessEvent p;
  p.kind = fmt::ProcessEventKind::mmap;
  p.pid = pid;
  p.tid = pid;
  p.map_address = address;
  p.map_length = 0x10000;
  p.path = "/usr/bin/app";
  return p;
}

fmt::Event event(uint32_t pid, const std::vector<uint64_t>& stack, uint64_t key) {
  fmt::Event e;
  e.pid = pid;
  e.tid = pid;
  e.stack = stack.data();
  e.stack_depth = static_cast<uint16_t>(stack.size());
  e.stack_key = key;
  return e;
}

}  // namespace

TEST_CASE("a stack's number by its key is its number by its addresses", "[stack_store]") {
  std::vector<TraceFileInfo> files(1);
  files[0].object_tables = std::make_shared<std::vector<fmt::ObjectTable>>();
  StackSymbolizer symbols(files);
  symbols.on_process(0, mmap_event(7, 0x400000));
  const std::vector<uint64_t> a = {0x401000, 0x402000}, b = {0x401000, 0x403000};
  StackStore store;
  CHECK(store.add(symbols, 0, event(7, a, 1 << 8 | 1)) == 1);
  CHECK(store.add(symbols, 0, event(7, b, 1 << 8 | 2)) == 2);
  CHECK(store.add(symbols, 0, event(7, a, 1 << 8 | 1)) == 1);
  CHECK(store.add(symbols, 0, event(7, a, 2 << 8 | 1)) == 1);  // another chunk's key
  CHECK(store.add(symbols, 0, event(7, a, 0)) == 1);           // no key: by the addresses
  CHECK(store.add(symbols, 0, event(8, a, 1 << 8 | 1)) == 3);  // a process without mappings
  symbols.on_process(0, mmap_event(7, 0x500000));              // new mappings for pid 7
  CHECK(store.add(symbols, 0, event(7, a, 1 << 8 | 1)) == 4);
  CHECK(store.get(4).frames == a);
  CHECK(store.size() == 4);
}

TEST_CASE("numbers by key equal numbers by addresses over many chunks and processes",
          "[stack_store]") {
  std::vector<TraceFileInfo> files(1);
  files[0].object_tables = std::make_shared<std::vector<fmt::ObjectTable>>();
  StackSymbolizer keyed_symbols(files), plain_symbols(files);
  std::vector<std::vector<uint64_t>> stacks;
  for (uint64_t s = 0; s < 300; ++s) stacks.push_back({0x401000 + s * 16, 0x402000 + s % 7});
  std::mt19937_64 rng(33);
  StackStore keyed, plain;
  uint64_t chunk = 1;
  for (int i = 0; i < 200000; ++i) {
    if (i % 5000 == 0) ++chunk;  // keys start over in each chunk
    if (i % 20000 == 7) {        // mappings change now and then
      const fmt::ProcessEvent m =
          mmap_event(static_cast<uint32_t>(1 + rng() % 3), 0x400000 + rng() % 4 * 0x10000);
      keyed_symbols.on_process(0, m);
      plain_symbols.on_process(0, m);
    }
    const uint32_t pid = static_cast<uint32_t>(1 + rng() % 4);
    const uint64_t s = rng() % stacks.size();
    const uint64_t by_key =
        keyed.add(keyed_symbols, 0, event(pid, stacks[s], chunk << 32 | (s + 1)));
    const uint64_t by_addresses = plain.add(plain_symbols, 0, event(pid, stacks[s], 0));
    if (by_key != by_addresses)
      FAIL("event " << i << ": " << by_key << " by key, " << by_addresses);
  }
  CHECK(keyed.size() == plain.size());
}
