// Event::stack_key: the reader's identity of a stack, by which consumers
// count events without reading their addresses. Events of one stack in a
// chunk share it; another stack, the same stack in another chunk or read
// by another reader, and an event without a stack do not.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

Event with_stack(uint64_t t, const std::vector<uint64_t>& stack, bool truncated = false) {
  Event e;
  e.time_ns = t;
  e.pid = 10;
  e.tid = 11;
  e.stack = stack.empty() ? nullptr : stack.data();
  e.stack_depth = static_cast<uint16_t>(stack.size());
  e.stack_truncated = truncated;
  return e;
}

std::vector<uint64_t> keys_of(const std::string& path, unsigned threads) {
  ReaderOptions options;
  options.decode_threads = threads;
  auto r = TraceReader::open(path, options);
  REQUIRE(r.ok());
  std::vector<uint64_t> keys;
  while (r->next()) {
    if (r->kind() == RecordKind::event) keys.push_back(r->event().stack_key);
  }
  return keys;
}

}  // namespace

TEST_CASE("events of one stack in a chunk share a stack key that nothing else has", "[stack_key]") {
  const std::vector<uint64_t> a = {0x401000, 0x401234}, b = {0x401000, 0x405678}, none;
  TempPath tmp;
  {
    auto w = TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(1));
    REQUIRE(w.ok());
    for (const Event& e : {with_stack(100, a), with_stack(110, b), with_stack(120, a),
                           with_stack(130, a, true), with_stack(140, none)}) {
      REQUIRE(w->append(e).ok());
    }
    REQUIRE(w->flush().ok());
    REQUIRE(w->append(with_stack(200, a)).ok());  // the next chunk
    REQUIRE(w->finish({}).ok());
  }
  std::set<uint64_t> seen;
  for (unsigned threads : {1u, 2u}) {
    INFO("decode threads " << threads);
    const std::vector<uint64_t> k = keys_of(tmp.str(), threads);
    REQUIRE(k.size() == 6);
    CHECK(k[0] != 0);
    CHECK(k[2] == k[0]);  // a again
    CHECK(k[1] != k[0]);  // b
    CHECK(k[3] != k[0]);  // a's frames, cut: another stack
    CHECK(k[3] != k[1]);
    CHECK(k[4] == 0);  // no stack
    CHECK(k[5] != 0);  // a in another chunk: numbered again
    CHECK(k[5] != k[0]);
    CHECK(k[5] != k[1]);
    CHECK(k[5] != k[3]);
    // Another reader of the same file: keys of its own.
    for (uint64_t key : {k[0], k[1], k[3], k[5]}) CHECK(seen.insert(key).second);
  }
}
