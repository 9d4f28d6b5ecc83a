// Bodies of the metadata, probe table, summary, index and object blocks
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

// The index: the summary block's offset (0 = none), one entry per chunk and
// (1.3) the offsets of the object blocks; an index without the 1.3 appendix
// decodes with no objects.
struct ChunkIndex {
  uint64_t summary_offset = 0;
  std::vector<IndexEntry> chunks;
  std::vector<uint64_t> objects;
};
void encode_index(std::string& out, const ChunkIndex& index);
Result<ChunkIndex> decode_index(std::string_view body);

// An object block (1.3): symbols sorted by file_offset here (stably), names
// cut at kMaxSymbolName bytes, build_id and path at the limits of an mmap
// event's, so that a key an mmap event names matches its object's.
void encode_object(std::string& out, const ObjectTable& object);
Result<ObjectTable> decode_object(std::string_view body);

}  // namespace usdt::format
