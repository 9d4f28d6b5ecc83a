// The structure-aware fuzzer's traces (tests/fuzz/trace_structure_fuzz.cpp):
// a valid trace built from the fuzzer's bytes as a list of blocks with their
// bodies before zstd, so that mutations change counts, sizes and offsets
// inside them and the file is then written with every checksum right.
//
// Each event written carries its number in its first argument and a hash of
// that number in its second: an event read back with both is one the file
// holds, and reading it twice is a double count, whatever else a mutation
// did to the chunk around it.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/byte_cursor.h"
#include "formats/chunk_codec.h"
#include "formats/file_layout.h"
#include "formats/table_codec.h"
#include "formats/trace_types.h"
#include "formats/zstd_codec.h"

namespace usdt::format::fuzz {

// The second argument of event number n.
inline uint64_t event_mark(uint64_t n) {
  uint64_t z = n + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct ModelBlock {
  uint16_t kind = 0;
  std::string head;    // the kind's uncompressed header (56 bytes for a chunk)
  std::string plain;   // the body before zstd
  bool listed = true;  // in the index (chunks, objects, added sites, summary)
};

struct TraceModel {
  std::vector<ModelBlock> blocks;  // from the metadata on, in file order
  uint64_t events = 0;             // events written, numbered 0..events-1
  uint32_t sites = 0;              // probe sites, with the added ones
  bool footer = true;
};

// A value for a field that held original: the edges readers get wrong.
inline uint64_t pick_value(FuzzedDataProvider& f, uint64_t original) {
  switch (f.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return 0;
    case 1:
      return original + 1;
    case 2:
      return original - 1;
    case 3:
      return original * 2;
    case 4:
      return uint64_t{1} << f.ConsumeIntegralInRange<int>(0, 63);
    case 5:
      return (uint64_t{1} << f.ConsumeIntegralInRange<int>(1, 63)) - 1;
    case 6:
      return ~uint64_t{0} - f.ConsumeIntegralInRange<uint64_t>(0, 4096);
    case 7:
      return kMaxChunkRecords + f.ConsumeIntegralInRange<int>(-2, 2);
    case 8:
      return f.ConsumeIntegral<uint64_t>();
    default:
      return original + static_cast<uint64_t>(f.ConsumeIntegralInRange<int64_t>(-100, 100));
  }
}

// Replaces the k-th varint of s, from byte at on, by value; false when s
// holds fewer.
inline bool set_varint(std::string& s, size_t at, int k, uint64_t value) {
  ByteCursor in(std::string_view(s).substr(std::min(at, s.size())));
  for (int i = 0; i < k; ++i) in.varint();
  const size_t begin = s.size() - in.remaining();
  in.varint();
  if (!in.ok()) return false;
  const size_t end = s.size() - in.remaining();
  std::string v;
  ByteWriter(v).varint(value);
  s.replace(begin, end - begin, v);
  return true;
}

// The sections of a chunk payload after its header copy.
struct Section {
  uint8_t kind;
  std::string body;
};
inline std::vector<Section> sections_of(const std::string& payload) {
  std::vector<Section> out;
  ByteCursor in(
      std::string_view(payload).substr(std::min<size_t>(kChunkHeaderSize, payload.size())));
  while (!in.at_end()) {
    uint8_t kind = in.u8();
    std::string_view body = in.bytes(in.varint());
    if (!in.ok()) break;
    out.push_back(Section{kind, std::string(body)});
  }
  return out;
}
inline std::string payload_of(const std::string& header_copy,
                              const std::vector<Section>& sections) {
  std::string out = header_copy;
  ByteWriter w(out);
  for (const Section& s : sections) {
    w.u8(s.kind);
    w.str(s.body);
  }
  return out;
}

// Sites with two numeric arguments (the event's number and mark) and, for
// every third, a string argument.
inline std::vector<ProbeSite> model_sites(uint32_t first, uint32_t n) {
  std::vector<ProbeSite> out;
  for (uint32_t i = first; i < first + n; ++i) {
    ProbeSite s;
    s.id = i;
    s.path = "/bin/p";
    s.provider = "p";
    s.name = "n" + std::to_string(i);
    for (int a = 0; a < 2 + (i % 3 == 2 ? 1 : 0); ++a) {
      ArgDescriptor d;
      d.spec = "8@%rdi";
      d.is_string = a == 2;
      s.args.push_back(d);
    }
    out.push_back(s);
  }
  return out;
}

// One chunk of the model: events numbered from m.events on, with process
// and lost records and, when stacks, call stacks.
inline ModelBlock model_chunk(FuzzedDataProvider& f, TraceModel& m, uint64_t base, bool stacks) {
  ChunkBuilder b;
  const int n = f.ConsumeIntegralInRange<int>(0, 40);
  static const uint64_t kStack[] = {0x401000, 0x401200, 0x7f0000001000};
  for (int j = 0; j < n; ++j) {
    Event e;
    e.time_ns = base + 10 * static_cast<uint64_t>(j);
    e.site_id = f.ConsumeIntegralInRange<uint32_t>(0, m.sites - 1);
    e.pid = 5;
    e.tid = 5 + static_cast<uint32_t>(j % 3);
    e.cpu = static_cast<uint32_t>(j % 2);
    e.arg_count = e.site_id % 3 == 2 ? 3 : 2;
    e.args[0] = m.events;
    e.args[1] = event_mark(m.events);
    ++m.events;
    if (e.arg_count == 3) {
      // add() copies the bytes at once.
      const std::string text(static_cast<size_t>(j % 7), 's');
      const StringArg arg{text, j % 5 == 0};
      e.string_mask = 0b100;
      e.args[2] = reinterpret_cast<uint64_t>(&arg);
      b.add(e);
      continue;
    }
    if (stacks && j % 2 == 0) {
      e.stack = kStack;
      e.stack_depth = static_cast<uint16_t>(1 + j % 3);
    }
    b.add(e);
  }
  if (f.ConsumeBool()) b.add(ProcessEvent{base + 5, ProcessEventKind::comm, 5, 6, 0, 0, "w"});
  if (f.ConsumeBool()) b.add(LostEvent{base + 7, base + 9, 1, 0, 3});
  ModelBlock block;
  block.kind = static_cast<uint16_t>(BlockKind::chunk);
  const ChunkHeader h = b.encode(block.plain);
  encode_chunk_header(block.head, h);
  return block;
}

}  // namespace usdt::format::fuzz
