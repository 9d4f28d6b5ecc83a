// Finds the chunks of a trace (formats/FORMAT.md section 6, "Finding
// chunks"): from the chunk index when the trailer and the index are intact,
// otherwise by walking the blocks from the end of the probe table, resuming
// at the next plausible block frame after damage. Sets the summary when it
// finds one, reads the object blocks (1.3) into the state's objects and the
// added probe sites blocks (1.4) into its sites (before the summary, which
// counts them), and notes truncation and every problem in the diagnostics; a
// chunk it returns is only located, its content is checked when it is read.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "formats/file_layout.h"
#include "formats/reader_state.h"

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
    return std::move(chunks_);
  }

  // One block each, also for a reader that follows a file being written
  // (trace_follower.h) and walks the blocks itself.
  // Reads the object block at offset into the state's objects; a damaged
  // one is reported and left out.
  void read_object(uint64_t offset);
  // Reads the added probe sites block at offset into the state's sites; a
  // damaged one, or one whose ids do not continue the sites so far, is
  // reported and left out.
  void read_added_sites(uint64_t offset);
  // Reads the summary block at offset into the state; a damaged one is
  // reported.
  void read_summary(uint64_t offset);

 private:
  // Uses the trailer and the index when both are intact; false (with a
  // problem noted when they exist but are damaged) means "scan instead".
  bool read_footer(uint64_t data_start);
  // Whether a complete, plausible block frame starts at offset.
  bool plausible_block(uint64_t offset);
  // The offset of the next plausible block at or after from; nullopt when
  // there is none.
  std::optional<uint64_t> find_block(uint64_t from);
  // Walks the blocks from offset, collecting chunk headers, up to the end of
  // the file or the first block that is incomplete.
  void scan(uint64_t offset);

  ReaderState& st_;
  std::vector<IndexEntry> chunks_;
  std::optional<uint64_t> scanned_summary_;  // the last summary block the scan met
};

}  // namespace usdt::format
