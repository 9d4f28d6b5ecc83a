// Bodies of the metadata, probe table, summary, index and object blocks
// (formats/FORMAT.md), before zstd. Decoders validate every count and length
// against the bytes that remain, ignore fields a newer minor version appended,
// and return an error saying what is wrong (the caller adds the offset).
//
// Given a budget, a decoder takes what it decodes from it before allocating
// (FORMAT.md section 6, "Memory budget") and keeps it taken on success (the
// caller then holds it); on failure it gives everything back, and a failure
// because the budget refused is told apart by ReadBudget::refusals().
// Without one (nullptr), nothing is counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/file_layout.h"
#include "formats/read_budget.h"
#include "formats/trace_types.h"

namespace usdt::format {

void encode_metadata(std::string& out, const TraceMetadata& metadata);
Result<TraceMetadata> decode_metadata(std::string_view body, ReadBudget* budget = nullptr);

void encode_probe_table(std::string& out, const std::vector<ProbeSite>& sites);
Result<std::vector<ProbeSite>> decode_probe_table(std::string_view body,
                                                  ReadBudget* budget = nullptr);

// An added probe sites block (1.4): the time the sites became active, then
// entries as in the probe table. Encoding writes the sites' own ids; decoding
// requires ids first_id, first_id + 1, ... (first_id: the sites known before
// the block), at least one and at most max_count of them, and sets each
// site's active_since_ns.
void encode_added_sites(std::string& out, const std::vector<ProbeSite>& sites,
                        uint64_t active_since_ns);
Result<std::vector<ProbeSite>> decode_added_sites(std::string_view body, uint32_t first_id,
                                                  uint64_t max_count, ReadBudget* budget = nullptr);

// table_sites: the probe table's size. Counts of sites beyond it (added
// sites, 1.4) go into the lists appended after the drops, so that a 1.3
// reader, which checks the per-site lists against its probe table, still
// reads the summary. Decoding joins the lists again and checks them against
// site_count, every site the reader knows.
void encode_summary(std::string& out, const TraceSummary& summary,
                    size_t table_sites = SIZE_MAX);
Result<TraceSummary> decode_summary(std::string_view body, size_t site_count,
                                    ReadBudget* budget = nullptr);

// A progress block (1.8, FORMAT.md 3.9): two varints.
void encode_progress(std::string& out, const Progress& progress);
Result<Progress> decode_progress(std::string_view body);

// The index: the summary block's offset (0 = none), one entry per chunk,
// (1.3) the offsets of the object blocks and (1.4) those of the added probe
// sites blocks; an index without an appendix decodes with an empty list.
struct ChunkIndex {
  uint64_t summary_offset = 0;
  std::vector<IndexEntry> chunks;
  std::vector<uint64_t> objects;
  std::vector<uint64_t> added_sites;
  uint64_t budget_bytes = 0;  // what decoding took from the budget: the lists
};
void encode_index(std::string& out, const ChunkIndex& index);
Result<ChunkIndex> decode_index(std::string_view body, ReadBudget* budget = nullptr);

// An object block (1.3): symbols sorted by file_offset here (stably), names
// cut at kMaxSymbolName bytes, build_id and path at the limits of an mmap
// event's, so that a key an mmap event names matches its object's.
void encode_object(std::string& out, const ObjectTable& object);
Result<ObjectTable> decode_object(std::string_view body, ReadBudget* budget = nullptr);

}  // namespace usdt::format
