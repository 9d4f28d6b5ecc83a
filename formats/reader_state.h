// What the parts of a TraceReader share (formats/trace_reader.cpp opens the
// file, formats/chunk_locator.cpp finds the chunks, formats/chunk_merger.cpp
// returns their records in order): the bytes, the probe table and the tables
// derived from it, the summary, the diagnostics and one zstd context.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/byte_source.h"
#include "formats/file_layout.h"
#include "formats/read_budget.h"
#include "formats/trace_reader.h"
#include "formats/trace_types.h"
#include "formats/zstd_codec.h"

namespace usdt::format {

// The end of a message about a budget the reader's content did not fit in.
inline constexpr const char* kRaiseBudget =
    "raise the reader's memory budget (usdt-report --max-memory)";

struct ReaderState {
  std::string path;
  uint16_t minor_version = 0;       // of the file's format (read_file_start)
  std::shared_ptr<ByteSource> src;  // shared with forked readers (TraceReader::fork)
  ReaderOptions options;
  TraceMetadata metadata;
  // The probe table's sites, then those of the added probe sites blocks
  // (1.4) read so far; every table below is by site id and has as many.
  std::vector<ProbeSite> sites;
  std::vector<uint8_t> site_arg_counts;     // by site id: its number of arguments
  std::vector<uint16_t> site_string_masks;  // by site id: bit i, argument i is a string
  std::vector<uint8_t> site_frames;         // by site id: 1 when its last argument is the frame
  std::optional<TraceSummary> summary;
  // 1.3 object blocks, in file order: read at open, then shared (unchanged)
  // by every fork of the reader, which would otherwise copy the symbols.
  std::shared_ptr<std::vector<ObjectTable>> objects = std::make_shared<std::vector<ObjectTable>>();
  ReadDiagnostics diag;
  // What the reader holds of what it decoded (formats/read_budget.h): the
  // tables above and the located chunks, then the chunks the merger holds.
  ReadBudget budget{kDefaultReadBudget};
  ZstdDecompressor zstd;
  std::string block_buf;  // reused for every block read
  uint64_t body_held = 0;    // budget held for the last table body decompressed
  uint64_t tables_held = 0;  // what the tables hold once open (forks start from it)
  uint64_t ahead_peak = 0;   // the most held by chunks decoded ahead (ChunkPrefetcher)

  // Reads and checks the file header, the metadata and the probe table
  // (formats/FORMAT.md section 6, "Opening") into this state; returns where
  // the blocks after the probe table begin. Fails naming the file and the
  // offset.
  Result<uint64_t> read_file_start();

  // Appends decoded sites (ids continuing those in sites) and what the
  // chunk decoder needs of them: the frame leaves the arguments (has_frame),
  // the argument counts and string masks are noted.
  void add_sites(std::vector<ProbeSite> added);

  // "'PATH' at offset N (0xN)", for messages.
  std::string where(uint64_t offset) const;
  void problem(uint64_t offset, std::string message);
  // A budget of limit bytes holding the serial loader's buffers and, for a
  // fork, the tables its reader read (tables: what they hold, as
  // tables_held).
  void start_budget(uint64_t limit, uint64_t tables = 0);
  // A problem of something left out because it did not fit in the budget.
  void budget_problem(uint64_t offset, std::string message);
  // Copies the budget's figures into diag.
  void note_memory();

  // Reads and decompresses the block at offset, which must be of kind;
  // body_out gets the decompressed body, returns the whole block's size.
  // Fails, naming the file, the offset and what, when the block is missing,
  // truncated, of another kind or damaged, or when its body does not fit in
  // the budget (then budget.refusals() grew). The body is held in the budget
  // until the next call or release_table_body().
  Result<uint64_t> read_table_block(uint64_t offset, BlockKind kind, const char* what,
                                    std::string& body_out);
  void release_table_body();
};

}  // namespace usdt::format
