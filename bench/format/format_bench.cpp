// Google Benchmark of the trace format on the synthetic loop stream:
// encoding a chunk (with and without zstd), decoding a chunk, writing a
// whole file, reading a whole file through TraceReader. items/s is events/s.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "bench/format/synthetic_stream.h"
#include "formats/chunk_codec.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "formats/zstd_codec.h"

using namespace usdt::format;

namespace {

constexpr int kChunkEvents = 100'000;  // about 1 MiB of payload, the default chunk

std::string temp_path() {
  char path[] = "/tmp/usdt-format-bench-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  return path;
}

void BM_EncodeChunk(benchmark::State& state) {
  int level = static_cast<int>(state.range(0));
  bench::SyntheticStream stream;
  ChunkBuilder builder;
  auto zstd = ZstdCompressor::create(level > 0 ? level : 1);
  std::string payload, frame;
  for (auto _ : state) {
    for (int i = 0; i < kChunkEvents; ++i) builder.add(stream.next());
    builder.encode(payload);
    if (level > 0) (void)zstd->compress(payload, frame);
    benchmark::DoNotOptimize(frame.data());
  }
  state.SetItemsProcessed(state.iterations() * kChunkEvents);
  state.counters["payload_bytes_per_event"] = double(payload.size()) / kChunkEvents;
  if (level > 0) state.counters["compressed_bytes_per_event"] = double(frame.size()) / kChunkEvents;
}
BENCHMARK(BM_EncodeChunk)->Arg(0)->Arg(1)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_DecodeChunk(benchmark::State& state) {
  bench::SyntheticStream stream;
  ChunkBuilder builder;
  for (int i = 0; i < kChunkEvents; ++i) builder.add(stream.next());
  std::string payload, frame;
  ChunkHeader header = builder.encode(payload);
  auto zstd = ZstdCompressor::create(3);
  (void)zstd->compress(payload, frame);
  std::vector<uint8_t> arg_counts = {2};
  ZstdDecompressor unzstd;
  uint64_t sum = 0;
  for (auto _ : state) {
    std::string out;
    (void)unzstd.decompress(frame, 64 << 20, out);
    ChunkDecoder d(std::move(out), &arg_counts);
    d.start(header);
    while (d.has_next()) {
      d.advance();
      sum += d.event().args[0];
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kChunkEvents);
}
BENCHMARK(BM_DecodeChunk)->Unit(benchmark::kMillisecond);

void BM_WriteFile(benchmark::State& state) {
  std::string path = temp_path();
  WriterOptions options;
  options.zstd_level = static_cast<int>(state.range(0));
  const int events = 1'000'000;
  bench::SyntheticStream stream;
  for (auto _ : state) {
    auto w =
        TraceWriter::create(path, bench::synthetic_metadata(), bench::synthetic_sites(), options);
    for (int i = 0; i < events; ++i) (void)w->append(stream.next());
    (void)w->finish(TraceSummary{});
    state.counters["bytes_per_event"] = double(w->bytes_written()) / events;
  }
  state.SetItemsProcessed(state.iterations() * events);
  unlink(path.c_str());
}
BENCHMARK(BM_WriteFile)->Arg(1)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_ReadFile(benchmark::State& state) {
  std::string path = temp_path();
  const int events = 2'000'000;
  {
    auto w = TraceWriter::create(path, bench::synthetic_metadata(), bench::synthetic_sites());
    bench::SyntheticStream stream;
    for (int i = 0; i < events; ++i) (void)w->append(stream.next());
    (void)w->finish(TraceSummary{});
  }
  uint64_t sum = 0;
  for (auto _ : state) {
    auto r = TraceReader::open(path);
    while (r->next()) sum += r->event().time_ns;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * events);
  unlink(path.c_str());
}
BENCHMARK(BM_ReadFile)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
