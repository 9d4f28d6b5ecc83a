// libFuzzer target for the trace reader: opens the input as a trace and reads
// every record, checking the reader's promises on the way: records in time
// order, site ids inside the probe table, argument counts inside the site's.
// Any crash, sanitizer report or broken promise is a finding.
//
// Inputs starting with 'C' instead feed the rest straight to the chunk
// decoder, as a decompressed payload: zstd's checksum stops almost every
// mutation of a whole trace before the decoder, but a hostile writer can
// produce checksum-valid chunks, so the decoder is fuzzed on its own too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/chunk_codec.h"
#include "formats/trace_reader.h"

using namespace usdt::format;

namespace {

// Sort key of a record, for the order check.
uint64_t record_time(const TraceReader& r) {
  switch (r.kind()) {
    case RecordKind::event:
      return r.event().time_ns;
    case RecordKind::process:
      return r.process().time_ns;
    case RecordKind::lost:
      return r.lost().time_begin_ns;
  }
  __builtin_trap();
}

// Touches every byte of the event's strings (ASan sees a dangling one).
void check_strings(const Event& e) {
  for (int i = 0; i < e.arg_count; ++i) {
    if (!e.is_string(i) || !e.has_arg(i)) continue;
    const StringArg& s = e.string_arg(i);
    if (s.bytes.size() > kMaxStringArgBytes) __builtin_trap();
    unsigned sum = 0;
    for (char c : s.bytes) sum += static_cast<unsigned char>(c);
    if (sum == 0xffffffffu) __builtin_trap();  // keeps the loop
  }
}

// Touches every address of the event's stack (ASan sees a dangling one).
void check_stack(const Event& e) {
  if (e.stack_depth > kMaxStackDepth) __builtin_trap();
  if (e.stack_depth > 0 && e.stack == nullptr) __builtin_trap();
  uint64_t sum = 0;
  for (uint16_t i = 0; i < e.stack_depth; ++i) sum += e.stack[i];
  if (sum == 0x5555555555555555ull) __builtin_trap();  // keeps the loop
}

void fuzz_chunk(const uint8_t* data, size_t size) {
  std::string payload(reinterpret_cast<const char*>(data), size);
  ByteCursor in(payload);
  ChunkHeader header = decode_chunk_header(in);  // the payload's own copy
  static const std::vector<uint8_t> arg_counts = {0, 1, 2, 3, 12};
  // As make_seeds.cpp's kChunkStringMasks.
  static const std::vector<uint16_t> string_masks = {0, 0b1, 0b10, 0b101, 0x801};
  ChunkDecoder d(payload, &arg_counts, &string_masks);
  if (!d.start(header)) return;
  // A drained decoder (decoding on a worker thread, -j N) must give the
  // same records and end the same way.
  ChunkDecoder drained(std::move(payload), &arg_counts, &string_masks);
  if (!drained.start(header)) __builtin_trap();
  drained.drain();
  uint64_t last = 0;
  uint8_t last_rank = 0;
  while (d.has_next()) {
    uint64_t t = d.next_time();
    uint8_t rank = d.next_rank();
    if (t < last || (t == last && rank < last_rank)) __builtin_trap();  // (time, rank) order
    last = t;
    last_rank = rank;
    d.advance();
    if (!drained.has_next() || drained.next_time() != t || drained.next_rank() != rank) {
      __builtin_trap();
    }
    drained.advance();
    if (drained.kind() != d.kind()) __builtin_trap();
    if (d.kind() == RecordKind::event) {
      const Event& e = d.event();
      const Event& de = drained.event();
      if (de.time_ns != e.time_ns || de.site_id != e.site_id || de.pid != e.pid ||
          de.arg_count != e.arg_count || de.missing_mask != e.missing_mask ||
          de.stack_depth != e.stack_depth || de.stack_truncated != e.stack_truncated) {
        __builtin_trap();
      }
      for (uint16_t i = 0; i < e.stack_depth; ++i) {
        if (de.stack[i] != e.stack[i]) __builtin_trap();
      }
      check_strings(de);
      if (e.time_ns != t || e.site_id >= arg_counts.size()) __builtin_trap();
      if (e.arg_count > arg_counts[e.site_id]) __builtin_trap();
      if (e.time_ns < header.min_time_ns || e.time_ns > header.max_time_ns) __builtin_trap();
      check_strings(e);
      check_stack(e);
    }
  }
  if (drained.has_next() || drained.error() != d.error()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0 && data[0] == 'C') {
    fuzz_chunk(data + 1, size - 1);
    return 0;
  }
  ReaderOptions options;
  options.max_chunk_payload = 1 << 20;  // keeps each input fast
  options.memory_budget = 64 << 20;
  // The last byte's bit 1 decodes on two worker threads (-j 2).
  if (size > 0 && (data[size - 1] & 2)) options.decode_threads = 2;
  auto reader = TraceReader::open_bytes(std::string(reinterpret_cast<const char*>(data), size),
                                        "fuzz.trace", options);
  if (!reader) return 0;
  size_t sites = reader->sites().size();
  uint64_t time_min = 0;  // events before it must not come
  bool no_events = false;  // the filter lets no event through
  // Use the first input byte to pick a filter, so filters get fuzzed too.
  if (size > 0 && (data[size - 1] & 1)) {
    ReadFilter f;
    // Bit 4: a window alone (runs of events come from its chunks too).
    if (!(data[size - 1] & 16)) f.site_ids = {data[size - 1] % 5u};
    f.time_min_ns = reader->metadata().start_monotonic_ns;
    // Bit 5: the window starts later (events before it are passed over a
    // batch at a time when the arguments are left undecoded).
    if ((data[size - 1] & 32) && size > 1) *f.time_min_ns += uint64_t{data[size - 2]} * 997;
    time_min = *f.time_min_ns;
    // Bit 2: the arguments left undecoded (summary, latency by thread).
    f.arguments = (data[size - 1] & 4) == 0;
    // Bits 6 and 7 together: no events at all (a pass that reads only the
    // process records, report/process_history.h).
    no_events = (data[size - 1] & 192) == 192;
    f.events = !no_events;
    reader->set_filter(f);
  }
  uint64_t last = 0;
  auto check_event = [&](const Event& e) {
    if (no_events && e.site_id < sites) __builtin_trap();  // one of a known site passed
    if (e.time_ns < last) __builtin_trap();  // out of order
    if (e.time_ns < time_min) __builtin_trap();  // before the window
    last = e.time_ns;
    if (e.site_id >= sites) __builtin_trap();
    if (e.arg_count > reader->sites()[e.site_id].args.size()) __builtin_trap();
    check_strings(e);
    check_stack(e);
  };
  // Bit 3: events taken a run at a time where the reader can (what the
  // report's inputs do).
  const bool runs = size > 0 && (data[size - 1] & 8);
  for (;;) {
    const Event* first = nullptr;
    if (uint32_t n = runs ? reader->next_events(&first) : 0; n != 0) {
      for (uint32_t i = 0; i < n; ++i) check_event(first[i]);
      continue;
    }
    if (!reader->next()) break;
    if (reader->kind() == RecordKind::event) {
      check_event(reader->event());
      continue;
    }
    uint64_t t = record_time(*reader);
    if (t < last) __builtin_trap();  // out of order
    last = t;
    if (reader->kind() == RecordKind::lost) {
      uint32_t s = reader->lost().site_id;
      if (s != kNoSite && s >= sites) __builtin_trap();
    }
  }
  for (const ObjectTable& o : reader->objects()) {
    for (size_t i = 1; i < o.symbols.size(); ++i) {
      if (o.symbols[i].file_offset < o.symbols[i - 1].file_offset) __builtin_trap();  // sorted
    }
  }
  // Whatever the bytes, the reader stays within its memory budget.
  const ReadDiagnostics& d = reader->diagnostics();
  if (d.memory_peak > options.memory_budget) __builtin_trap();
  if (d.tables_decompressed > options.memory_budget) __builtin_trap();
  (void)reader->summary();
  return 0;
}
