// Finds the chunks of a trace (formats/FORMAT.md section 6, "Finding
// chunks"): from the chunk index when the trailer and the index are intact,
// otherwise by walking the blocks from the end of the probe table, resuming
// at the next plausible block frame after damage. Sets the summary when it
// finds one, reads the object blocks (1.3) into the state's objects and the
// added probe sites blocks (1.4) into its sites (before the summary, which
// counts them), and notes truncation and every problem in the diagnostics; a
// chunk it returns is only located, its content is checked when it is read.
// The chunks it returns lie in file order without overlapping (no byte is
// read as part of two chunks), and what it decodes and lists is taken from the
// reader's memory budget: what does not fit is reported and left out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/file_layout.h"
#include "formats/read_budget.h"
#include "formats/reader_state.h"
#include "formats/table_codec.h"

namespace usdt::format {

class ChunkLocator {
 public:
  explicit ChunkLocator(ReaderState& state) : st_(state) {}

  // The chunks after data_start (the end of the probe table), in file order.
  std::vector<IndexEntry> locate(uint64_t data_start) {
    chunks_.clear();
    if (!read_footer(data_start)) {
      // (read_footer gives up before it reads any added sites.)
      chunks_.clear();
      st_.objects->clear();
      scanned_summary_.reset();
      scan(data_start);
      // Decoded after the scan, which has then read every added probe
      // sites block: the summary counts their sites too.
      if (scanned_summary_) read_summary(*scanned_summary_);
    }
    st_.release_table_body();
    st_.tables_held = st_.budget.held();
    return std::move(chunks_);
  }

  // One block each, also for a reader that follows a file being written
  // (trace_follower.h) and walks the blocks itself. Each reads its block at
  // offset, reports a damaged one (or one over the budget) as left out, and
  // returns the block's size (0 when unknown): the object block into the
  // state's objects; the added probe sites block into its sites, when their
  // ids continue the sites so far; the summary.
  uint64_t read_object(uint64_t offset);
  uint64_t read_added_sites(uint64_t offset);
  void read_summary(uint64_t offset);

 private:
  // What a located chunk holds: its entry here and in the merger's sorted
  // list of them.
  static constexpr uint64_t kLocatedChunkBytes = 2 * sizeof(IndexEntry) + 16;

  // Uses the trailer and the index when both are intact; false (with a
  // problem noted when they exist but are damaged) means "scan instead".
  bool read_footer(uint64_t data_start);
  // Whether the chunks lie in [data_start, data_end), in file order and
  // without overlapping.
  static bool chunks_in_data(const std::vector<IndexEntry>& chunks, uint64_t data_start,
                             uint64_t data_end);
  // The added probe sites, summary and object blocks the index lists.
  void read_indexed_tables(const ChunkIndex& index, uint64_t data_start, uint64_t data_end);
  // Whether a block the index lists lies at or after from and before
  // data_end (the index); else reported as left out.
  bool listed_block_in_data(uint64_t offset, uint64_t from, uint64_t data_end, const char* what);
  // Appends a located chunk when the budget holds it; false, with the
  // problem reported, when not (the chunks after it are left out).
  bool add_chunk(const IndexEntry& e);

  // Whether a complete, plausible block frame starts at offset.
  bool plausible_block(uint64_t offset);
  // The offset of the next plausible block at or after from; nullopt when
  // there is none.
  std::optional<uint64_t> find_block(uint64_t from);
  // Walks the blocks from offset, collecting chunk headers, up to the end of
  // the file or the first block that is incomplete.
  void scan(uint64_t offset);
  // After a bad frame at offset (bad: why; empty when it claims more bytes
  // than the file holds): moves offset to the next plausible block, false
  // when there is none. Reports either way.
  bool resync(uint64_t& offset, uint64_t& resync_from, const std::string& bad);
  // Leaves out the last located chunk when the block at next starts inside it.
  void drop_overlapped_chunk(uint64_t next);
  // Takes the block at offset into what the scan found; false when the scan
  // ends there (an index, or the budget is spent).
  bool take_block(const BlockHeader& h, uint64_t offset);
  // Reports the end of a scan at an index block whose trailer ends at end.
  void end_at_index(uint64_t end);

  // A problem of a table block: over the budget when it refused something
  // since refusals_before.
  void table_problem(uint64_t offset, uint64_t refusals_before, std::string message);

  ReaderState& st_;
  std::vector<IndexEntry> chunks_;
  std::optional<uint64_t> scanned_summary_;  // the last summary block the scan met
  uint64_t data_start_ = 0;
};

}  // namespace usdt::format
