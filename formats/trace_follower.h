// Reads a trace file while the recorder writes it (formats/FORMAT.md
// section 6, "Following a file being written"): each look() walks the
// blocks written since the last look, stops before the first that is not
// complete yet, and returns the records of the new chunks, merged in time
// order among themselves. The progress blocks (1.8) say up to which time
// the chunks so far are complete; the summary ends the recording. Memory
// holds the probe table and, in each returned FollowedChunks, the chunks
// that overlap in time, as a TraceReader does. Bad input is reported in
// diagnostics(): a damaged chunk is skipped; a damaged block frame ends
// the following (a recorder writes whole blocks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/file_layout.h"
#include "formats/trace_reader.h"
#include "formats/trace_types.h"

namespace usdt::format {

class ChunkMerger;
struct ReaderState;

// The records of the chunks one look() found, in time order (FORMAT.md
// section 4), as TraceReader::next() returns them. Reads through its
// follower's state: the follower must outlive it.
class FollowedChunks {
 public:
  FollowedChunks();
  FollowedChunks(FollowedChunks&&) noexcept;
  FollowedChunks& operator=(FollowedChunks&&) noexcept;
  ~FollowedChunks();

  // The next record; false after the last. The current record, its strings
  // and its stack stay valid until the next call.
  bool next();
  RecordKind kind() const;
  const Event& event() const;
  const ProcessEvent& process() const;
  const LostEvent& lost() const;
  size_t chunk_count() const { return chunks_; }

 private:
  friend class TraceFollower;
  std::unique_ptr<ChunkMerger> merger_;
  size_t chunks_ = 0;
};

class TraceFollower {
 public:
  // Reads the header, the metadata and the probe table, which the recorder
  // writes first; fails as TraceReader::open does (a file still empty
  // fails too: the recorder creates it with its header).
  static Result<TraceFollower> open(const std::string& path);
  TraceFollower(TraceFollower&&) noexcept;
  TraceFollower& operator=(TraceFollower&&) noexcept;
  ~TraceFollower();

  const std::string& path() const;
  const TraceMetadata& metadata() const;
  uint16_t minor_version() const;
  // The probe table's sites, then those of the added probe sites blocks
  // walked so far.
  const std::vector<ProbeSite>& sites() const;

  // Walks the blocks written since the last look, the complete ones. Their
  // chunks' records come from the returned FollowedChunks; the added probe
  // sites among them are in sites() before. Fails only when the file can no
  // longer be read (it shrank, an I/O error).
  Result<FollowedChunks> look();

  // The last progress block walked (1.8); nullopt before the first one.
  const std::optional<Progress>& progress() const { return progress_; }
  // The summary was walked: the recording ended, every chunk is known
  // (summary() is nullopt when it was damaged).
  bool ended() const { return ended_; }
  // A damaged block frame stopped the following (diagnostics() says where).
  bool stopped() const { return stopped_; }
  const std::optional<TraceSummary>& summary() const;
  const ReadDiagnostics& diagnostics() const;
  // Bytes walked: where the next look() begins.
  uint64_t walked() const { return next_offset_; }

 private:
  TraceFollower() = default;
  // Handles the complete block at offset, of kind; false when it ends the walk.
  bool take_block(uint64_t offset, uint16_t kind, std::vector<IndexEntry>& chunks);

  std::unique_ptr<ReaderState> state_;  // at a fixed address: FollowedChunks read through it
  uint64_t next_offset_ = 0;
  std::optional<Progress> progress_;
  bool ended_ = false;
  bool stopped_ = false;
};

}  // namespace usdt::format
