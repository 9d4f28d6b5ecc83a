// Structure-aware libFuzzer target of the trace reader: the input does not
// become the file, it steers how one is built (tests/fuzz/trace_model.h).
// A valid trace of a few chunks, object blocks, added probe sites and a
// footer is built, then fields are changed where they are stored: counts
// and sizes in chunk headers, in sections and in tables (before zstd, so the
// checksums stay right), copies of table blocks, the index's offsets and
// sizes, block frames and the trailer. Byte mutations of a whole file stop
// at zstd's checksums; these reach every check behind them.
//
// What is checked, whatever the file (formats/FORMAT.md section 6): no
// event is read twice (each written event is numbered), no more events come
// than the file holds, the reader's memory stays within its budget, and the
// records keep their order and their sites. Any crash, sanitizer report or
// broken promise is a finding.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "formats/trace_reader.h"
#include "tests/fuzz/trace_model.h"

using namespace usdt::format;
using namespace usdt::format::fuzz;

namespace {

TraceModel build(FuzzedDataProvider& f) {
  TraceModel m;
  m.sites = f.ConsumeIntegralInRange<uint32_t>(1, 5);
  TraceMetadata meta;
  meta.hostname = "h";
  meta.start_monotonic_ns = 1000;
  ModelBlock b;
  b.kind = static_cast<uint16_t>(BlockKind::metadata);
  encode_metadata(b.plain, meta);
  m.blocks.push_back(b);
  b.kind = static_cast<uint16_t>(BlockKind::probe_table);
  b.plain.clear();
  encode_probe_table(b.plain, model_sites(0, m.sites));
  m.blocks.push_back(b);
  const int chunks = f.ConsumeIntegralInRange<int>(1, 5);
  const bool stacks = f.ConsumeBool();
  for (int c = 0; c < chunks; ++c) {
    // Chunks overlap in time when the step is short.
    const uint64_t base =
        1'000'000 + static_cast<uint64_t>(c) * f.ConsumeIntegralInRange<uint64_t>(1, 1000);
    m.blocks.push_back(model_chunk(f, m, base, stacks));
    if (f.ConsumeIntegralInRange<int>(0, 5) == 0) {  // sites added before the next chunk
      const uint32_t n = f.ConsumeIntegralInRange<uint32_t>(1, 3);
      b.kind = static_cast<uint16_t>(BlockKind::added_sites);
      b.plain.clear();
      encode_added_sites(b.plain, model_sites(m.sites, n), base);
      m.blocks.push_back(b);
      m.sites += n;
    }
  }
  for (int o = f.ConsumeIntegralInRange<int>(0, 2); o > 0; --o) {
    ObjectTable t;
    t.build_id = "ab" + std::to_string(o);
    t.symbols = {{0x1000, 0x10, "main"}, {0x1010, 0, "f"}};
    b.kind = static_cast<uint16_t>(BlockKind::object);
    b.plain.clear();
    encode_object(b.plain, t);
    m.blocks.push_back(b);
  }
  TraceSummary s;
  s.events = m.events;
  s.events_per_site.assign(m.sites, 1);
  s.dropped = {{"malformed", 2}};
  b.kind = static_cast<uint16_t>(BlockKind::summary);
  b.plain.clear();
  encode_summary(b.plain, s, m.sites);
  m.blocks.push_back(b);
  m.footer = f.ConsumeIntegralInRange<int>(0, 7) != 0;
  return m;
}

// Changes counts and sizes inside one block, or copies a table block.
void mutate_block(FuzzedDataProvider& f, TraceModel& m) {
  ModelBlock& b = m.blocks[f.ConsumeIntegralInRange<size_t>(0, m.blocks.size() - 1)];
  switch (f.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {  // a count of the chunk header, uncompressed, in the payload's copy, or both
      if (b.kind != static_cast<uint16_t>(BlockKind::chunk)) return;
      const size_t at = f.PickValueInArray({0, 8, 16, 20, 24});
      const int where = f.ConsumeIntegralInRange<int>(1, 3);
      const uint64_t v = pick_value(f, 0);
      for (std::string* s : {&b.head, &b.plain}) {
        if (!(where & (s == &b.head ? 1 : 2)) || s->size() < kChunkHeaderSize) continue;
        const int width = at < 16 ? 8 : 4;
        for (int i = 0; i < width; ++i) (*s)[at + i] = static_cast<char>(v >> (8 * i));
      }
      return;
    }
    case 1: {  // a varint of a section's head: counts, table entries, column sizes
      if (b.kind != static_cast<uint16_t>(BlockKind::chunk)) return;
      std::vector<Section> sections = sections_of(b.plain);
      if (sections.empty()) return;
      Section& s = sections[f.ConsumeIntegralInRange<size_t>(0, sections.size() - 1)];
      set_varint(s.body, 0, f.ConsumeIntegralInRange<int>(0, 40), pick_value(f, 1));
      b.plain = payload_of(b.plain.substr(0, kChunkHeaderSize), sections);
      return;
    }
    case 2:  // a varint of a table's body: counts of sites, symbols, causes
      if (b.kind == static_cast<uint16_t>(BlockKind::chunk)) return;
      set_varint(b.plain, 0, f.ConsumeIntegralInRange<int>(0, 8), pick_value(f, 1));
      return;
    default: {  // copies of a table block, listed or not
      if (b.kind == static_cast<uint16_t>(BlockKind::chunk) ||
          b.kind == static_cast<uint16_t>(BlockKind::metadata) ||
          b.kind == static_cast<uint16_t>(BlockKind::probe_table)) {
        return;
      }
      ModelBlock copy = b;
      copy.listed = f.ConsumeBool();
      m.blocks.insert(m.blocks.end() - 1, f.ConsumeIntegralInRange<size_t>(1, 64), copy);
      return;
    }
  }
}

// The file: blocks, then the index (changed as f says) and the trailer.
std::string write(FuzzedDataProvider& f, const TraceModel& m) {
  static auto zstd = ZstdCompressor::create(1);  // one context for every input
  std::string out;
  encode_file_header(out);
  ChunkIndex index;
  std::vector<uint64_t> offsets;
  for (const ModelBlock& b : m.blocks) {
    const uint64_t at = out.size();
    offsets.push_back(at);
    std::string frame;
    (void)zstd->compress(b.plain, frame);
    encode_block_header(
        out, BlockHeader{kBlockSync, b.kind, static_cast<uint16_t>(b.head.size()), frame.size()});
    out += b.head;
    out += frame;
    if (!b.listed) continue;
    switch (static_cast<BlockKind>(b.kind)) {
      case BlockKind::chunk: {
        ByteCursor h(b.head);
        index.chunks.push_back(IndexEntry{at, out.size() - at, decode_chunk_header(h)});
        break;
      }
      case BlockKind::object:
        index.objects.push_back(at);
        break;
      case BlockKind::added_sites:
        index.added_sites.push_back(at);
        break;
      case BlockKind::summary:
        index.summary_offset = at;
        break;
      default:
        break;
    }
  }
  if (!m.footer) return out;
  for (int n = f.ConsumeIntegralInRange<int>(0, 3); n > 0 && !index.chunks.empty(); --n) {
    IndexEntry& e = index.chunks[f.ConsumeIntegralInRange<size_t>(0, index.chunks.size() - 1)];
    switch (f.ConsumeIntegralInRange<int>(0, 5)) {
      case 0:
        e.offset = pick_value(f, e.offset);
        break;
      case 1:
        e.block_size = pick_value(f, e.block_size);
        break;
      case 2:
        index.chunks.push_back(e);
        break;   // a chunk listed again
      case 5: {  // an entry whose end wraps around 2^64 to a chunk's start, then that chunk
        const IndexEntry target =
            index.chunks[f.ConsumeIntegralInRange<size_t>(0, index.chunks.size() - 1)];
        const uint64_t k = f.ConsumeIntegralInRange<uint64_t>(1, 1 << 20);
        index.chunks.push_back(IndexEntry{~uint64_t{0} - k + 1, target.offset + k, target.header});
        index.chunks.push_back(target);
        break;
      }
      case 3:
        index.objects.push_back(f.PickValueInArray({offsets.front(), offsets.back()}));
        break;
      default:
        index.added_sites.push_back(pick_value(f, offsets.back()));
        break;
    }
  }
  std::string plain;
  encode_index(plain, index);
  std::string frame;
  (void)zstd->compress(plain, frame);
  const uint64_t at = out.size();
  encode_block_header(
      out, BlockHeader{kBlockSync, static_cast<uint16_t>(BlockKind::index), 0, frame.size()});
  out += frame;
  Trailer t{at, out.size() - at};
  if (f.ConsumeIntegralInRange<int>(0, 15) == 0) t.index_offset = pick_value(f, t.index_offset);
  if (f.ConsumeIntegralInRange<int>(0, 15) == 0) t.index_size = pick_value(f, t.index_size);
  encode_trailer(out, t);
  return out;
}

// A field of a block frame (sync, kind, header size, body size) where the
// block starts.
void mutate_frame(FuzzedDataProvider& f, std::string& file) {
  size_t at = file.find("UBLK", f.ConsumeIntegralInRange<size_t>(0, file.size()));
  if (at == std::string::npos || file.size() - at < kBlockHeaderSize) return;
  const size_t field = f.PickValueInArray({4, 6, 8});
  const uint64_t v = pick_value(f, 0);
  const int width = field == 8 ? 8 : 2;
  for (int i = 0; i < width; ++i) file[at + field + i] = static_cast<char>(v >> (8 * i));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider f(data, size);
  TraceModel m = build(f);
  for (int n = f.ConsumeIntegralInRange<int>(0, 6); n > 0; --n) mutate_block(f, m);
  std::string file = write(f, m);
  for (int n = f.ConsumeIntegralInRange<int>(0, 2); n > 0; --n) mutate_frame(f, file);
  if (f.ConsumeIntegralInRange<int>(0, 15) == 0) {
    file.resize(f.ConsumeIntegralInRange<size_t>(0, file.size()));
  }
  ReaderOptions options;
  options.max_chunk_payload = 1 << 20;
  options.memory_budget = uint64_t{1} << f.PickValueInArray({21, 23, 25, 28});
  options.decode_threads = f.ConsumeBool() ? 2 : 1;
  // What a chunk could hold beyond the events written: one per five bytes
  // of payload (a byte in each of five columns).
  uint64_t payload_bytes = 0;
  for (const ModelBlock& b : m.blocks) payload_bytes += b.plain.size();
  auto reader = TraceReader::open_bytes(std::move(file), "structure.trace", options);
  if (!reader) return 0;
  const size_t sites = reader->sites().size();
  std::set<uint64_t> seen;
  uint64_t events = 0;
  uint64_t last = 0;
  while (reader->next()) {
    uint64_t t = 0;
    switch (reader->kind()) {
      case RecordKind::event: {
        const Event& e = reader->event();
        t = e.time_ns;
        if (e.site_id >= sites) __builtin_trap();
        if (e.arg_count > reader->sites()[e.site_id].args.size()) __builtin_trap();
        ++events;
        const bool numbered = e.has_arg(0) && e.has_arg(1) && !e.is_string(0) && !e.is_string(1) &&
                              e.args[0] < m.events && e.args[1] == event_mark(e.args[0]);
        if (numbered && !seen.insert(e.args[0]).second) __builtin_trap();  // read twice
        break;
      }
      case RecordKind::process:
        t = reader->process().time_ns;
        break;
      case RecordKind::lost:
        t = reader->lost().time_begin_ns;
        break;
    }
    if (t < last) __builtin_trap();  // out of order
    last = t;
  }
  if (events > m.events + payload_bytes / 5) __builtin_trap();  // more than the file holds
  const ReadDiagnostics& d = reader->diagnostics();
  if (d.memory_peak > options.memory_budget) __builtin_trap();
  if (d.tables_decompressed > options.memory_budget) __builtin_trap();
  return 0;
}
