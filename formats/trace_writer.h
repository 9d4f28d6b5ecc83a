// Writes a trace file (formats/FORMAT.md) as a stream of independently
// zstd-compressed chunks, so that everything flushed before a crash, SIGKILL
// or full disk stays readable. Single-threaded: the recorder calls it from its
// writer thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/block_output.h"
#include "formats/trace_types.h"

namespace usdt::format {

struct WriterOptions {
  size_t chunk_bytes = 1 << 20;  // uncompressed payload before a chunk is flushed
  int zstd_level = 3;
  // A chunk is also flushed by the first append that finds its oldest
  // buffered record older than this (0 = only by size and flush()), so that a
  // slow stream still reaches the disk. Idle writers flush nothing by
  // themselves: call flush() from a timer to bound the loss on a crash.
  uint32_t flush_interval_ms = 1000;
  // The most bytes the file may take (0: no limit). A chunk that would
  // leave no room for the end (summary, index, trailer) is not written: its
  // events are refused (events_refused()), so are all that come after it
  // (full()), and finish() still ends the file within the limit.
  uint64_t max_bytes = 0;
};

class TraceWriter {
 public:
  // Creates (truncates) path and writes the header, metadata and probe table.
  static Result<TraceWriter> create(const std::string& path, const TraceMetadata& metadata,
                                    const std::vector<ProbeSite>& sites,
                                    WriterOptions options = {});
  // The same, into any output (the file's bytes in order).
  static Result<TraceWriter> create(std::unique_ptr<BlockOutput> output,
                                    const TraceMetadata& metadata,
                                    const std::vector<ProbeSite>& sites,
                                    WriterOptions options = {});
  TraceWriter(TraceWriter&&) noexcept;
  TraceWriter& operator=(TraceWriter&&) noexcept;
  ~TraceWriter();

  // Events may come in any order across CPUs; the file and the reader put them
  // in time order. A failure (ENOSPC, EIO) is sticky: later calls fail too,
  // and what was flushed before stays readable. An event whose site_id is not
  // in the probe table, or with more arguments than its site, is refused
  // (not sticky); so is a lost record naming an unknown site (use kNoSite).
  // So is an event whose string_mask (below its arg_count) differs from its
  // site's string arguments. Missing-mask and string-mask bits at or above
  // arg_count are dropped; comm is cut at 4096 bytes. The bytes of string
  // arguments are copied (the caller may reuse them once append returns); a
  // null StringArg* is stored as a missing argument, a string over 64 KiB is
  // cut and marked truncated. A stack deeper than kMaxStackDepth is cut and
  // marked truncated; its addresses are copied like strings.
  Status append(const Event& event);
  // The same as appending each event in turn, checked once per call rather
  // than per event (the recorder's writer thread appends batches).
  Status append_events(const std::vector<Event>& events);
  Status append(const ProcessEvent& event);
  Status append(const LostEvent& event);
  // Writes the symbols of a file that appears in stacks (1.3, an object
  // block) at once, before any chunk still buffered, and lists it in the
  // index. Symbols are sorted by file_offset here; names over 4096 bytes are
  // cut. The caller writes each file once (a second table with the same key
  // is written but ignored by readers).
  Status add_object(const ObjectTable& object);
  // Adds probe sites attached during the recording (1.4, e.g. the probes of
  // a library the traced process dlopen()ed after the start), active from
  // active_since_ns (CLOCK_MONOTONIC, the clock of event times; the sites'
  // own active_since_ns is ignored). Their ids must continue densely from
  // the sites so far (the probe table's and earlier add_sites' sites): the
  // first one's id is their count. Writes one added probe sites block at
  // once, before any chunk still buffered, so that it precedes every chunk
  // that can hold their events, and lists it in the index; from then on
  // append() takes events of these sites as of any other. Refused (not
  // sticky) when the ids do not continue, a site has more than 12 arguments,
  // or the sites would exceed the format's limit; an empty list writes
  // nothing. The summary given to finish() may count them like the table's
  // sites (events_per_site indexed by id).
  Status add_sites(const std::vector<ProbeSite>& sites, uint64_t active_since_ns);

  // Writes a chunk block that another writer of the same recording encoded
  // (BlockOutput::write_chunk: its header and per-site counts), as it is,
  // after flushing the pending chunk: its sites must be this file's (the
  // same probe table and added sites). Refused (not sticky) when its counts
  // name a site this file does not have.
  Status append_chunk_block(std::string_view block, const ChunkHeader& header,
                            const SiteCounts& counts);

  // Notes (1.8) that every event and process event with a time below
  // complete_before_ns, and every lost record with time_end_ns below it,
  // has been appended: the next flush() says so in a progress block
  // (FORMAT.md 3.9), once those records are in the file. A time below one
  // noted before changes nothing.
  void note_complete_before(uint64_t complete_before_ns);

  // Compresses and writes the pending chunk, if any; then a progress block
  // when the time noted has moved since the last one written (the block
  // announces the next within options.flush_interval_ms).
  Status flush();

  // Flushes, writes the summary and the chunk index footer, closes the file.
  Status finish(const TraceSummary& summary);

  // Bytes in the file so far; events in the chunks flushed so far (events
  // still buffered for the next chunk are not counted).
  uint64_t bytes_written() const;
  uint64_t events_written() const;
  // Of the chunks written: events and lost events per site (indexed by site
  // id, added sites too), and lost events in all: what the summary of this
  // file counts.
  const std::vector<uint64_t>& events_per_site() const;
  const std::vector<uint64_t>& lost_per_site() const;
  uint64_t lost_written() const;
  // Records appended but not yet in a written chunk.
  uint64_t pending_records() const;
  // max_bytes: whether the file is full, and the events refused since.
  bool full() const;
  uint64_t events_refused() const;

 private:
  struct Impl;
  explicit TraceWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace usdt::format
