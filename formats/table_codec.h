// Bodies of the metadata, probe table, summary and index blocks
// (formats/FORMAT.md), before zstd. Decoders validate every count and length
// against the bytes that remain, ignore fields a newer minor version appended,
// and return an error saying what is wrong (the caller adds the offset).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "formats/file_layout.h"
#include "formats/trace_types.h"

namespace usdt::format {

void encode_metadata(std::string& out, const TraceMetadata& metadata);
Result<TraceMetadata> decode_metadata(std::string_view body);

void encode_probe_table(std::string& out, const std::vector<ProbeSite>& sites);
Result<std::vector<ProbeSite>> decode_probe_table(std::string_view body);

void encode_summary(std::string& out, const TraceSummary& summary);
Result<TraceSummary> decode_summary(std::string_view body, size_t site_count);

// The index: the summary block's offset (0 = none) and one entry per chunk.
struct ChunkIndex {
  uint64_t summary_offset = 0;
  std::vector<IndexEntry> chunks;
};
void encode_index(std::string& out, const ChunkIndex& index);
Result<ChunkIndex> decode_index(std::string_view body);

}  // namespace usdt::format
