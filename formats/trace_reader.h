// Streaming reader of a trace file (formats/FORMAT.md). Returns records in
// global time order across chunks, with memory bounded by the chunks that
// overlap in time, not by the file size. A truncated file yields every
// complete chunk before the cut and says it was truncated; a corrupted chunk
// is skipped and reported; the reader never crashes on hostile input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/completeness.h"
#include "formats/file_layout.h"
#include "formats/trace_types.h"

namespace usdt::format {

enum class RecordKind : uint8_t { event, process, lost };

// Restricts what next() returns; empty fields mean "everything".
//   events:          site in site_ids, pid, tid, time in [time_min_ns, time_max_ns];
//   process events:  pid, tid, and time <= time_max_ns only: those before the
//                    window still come, so that a report can name processes;
//   lost events:     site in site_ids (or unknown site), [time_begin, time_end]
//                    overlapping the window, time_begin <= time_max_ns (the
//                    order time: records ordered after the window are not
//                    read); pid and tid do not apply.
// A segment (segment_begin_ns / segment_end_ns) cuts the record sequence
// itself: only records whose order time (FORMAT.md section 4: time_ns, for
// lost records time_begin_ns) lies in [segment_begin_ns, segment_end_ns)
// come, of every kind, in the order they have in the whole sequence. The
// segments of a partition of time return every record once (parallel
// reports). A chunk's diagnostics (damaged, read, records skipped) belong
// to the segment holding its min_time_ns, so that they are counted once.
struct ReadFilter {
  std::vector<uint32_t> site_ids;  // events of these sites only
  std::optional<uint32_t> pid;
  std::optional<uint32_t> tid;
  std::optional<uint64_t> time_min_ns;  // inclusive, CLOCK_MONOTONIC
  std::optional<uint64_t> time_max_ns;  // inclusive
  std::optional<uint64_t> segment_begin_ns;  // inclusive, CLOCK_MONOTONIC
  std::optional<uint64_t> segment_end_ns;    // exclusive
  // false: the command reads no event's arguments, which the reader may
  // then leave undecoded (events read as having none; ChunkDecoder::
  // skip_arguments). The frame of function probes is still decoded.
  bool arguments = true;
  // false: no events at all, only process and lost records; chunks without
  // those are not read (a pass that only needs the process records).
  bool events = true;
  // A part of a series read after the part before it (1.7, FORMAT.md
  // 3.3.1): its carried process records, the chunk of process records only
  // all at this time, are left out.
  std::optional<uint64_t> skip_carried_ns;
};

// A problem found while reading: where and what; over_budget when what it
// left out did not fit in the reader's memory budget (ReaderOptions::
// memory_budget) rather than being damaged.
struct ReadProblem {
  uint64_t offset = 0;
  std::string message;
  bool over_budget = false;
};

struct ReadDiagnostics {
  bool truncated = false;  // the file ends inside a chunk or without its footer
  uint64_t chunks_read = 0;
  uint64_t chunks_bad = 0;       // checksum or decode failure: skipped
  uint64_t records_skipped = 0;  // unknown kinds skipped by length
  std::vector<ReadProblem> problems;
  // Offsets where a scan skipped bytes to the next plausible block: what
  // lay there (chunks, perhaps) is lost.
  std::vector<uint64_t> skipped_at;
  // The reader's memory budget and the most of it held at once so far
  // (formats/read_budget.h: the reader's own accounting).
  uint64_t memory_budget = 0;
  uint64_t memory_peak = 0;
  // Decompressed bytes of table blocks so far: at most the budget.
  uint64_t tables_decompressed = 0;
};

// Limits for hostile input; the defaults accept anything the writer makes.
struct ReaderOptions {
  uint64_t max_chunk_payload = 64ull << 20;  // decompressed bytes of one chunk
  // What the reader may hold of what it decodes (formats/FORMAT.md section 6,
  // "Memory budget"): the tables, and the chunks held at once (those
  // overlapping in time). A table or chunk that would exceed it is left out
  // and reported (ReadProblem::over_budget) rather than letting a hostile
  // file exhaust memory.
  uint64_t memory_budget = 256ull << 20;
  // Threads that load and decode chunks ahead of the merge (1: the calling
  // thread does everything). The records, their order and the diagnostics
  // are the same for every value.
  unsigned decode_threads = 1;
  // With decode_threads > 1: decoded bytes waiting for the merge, at most
  // (and at most a quarter of what the budget leaves for chunks), and chunks
  // decoded ahead, at most (0: 2 per thread).
  uint64_t decode_ahead_bytes = 128ull << 20;
  size_t decode_ahead_chunks = 0;
};

class TraceReader {
 public:
  // Reads and validates the header, metadata and probe table. Fails (naming
  // the file and offset) on a missing or empty file, a wrong magic, a newer
  // format version, or a header that cannot be read.
  static Result<TraceReader> open(const std::string& path);
  static Result<TraceReader> open(const std::string& path, const ReaderOptions& options);
  // Reads a trace held in memory (the fuzzer, tests); name stands for the
  // path in messages.
  static Result<TraceReader> open_bytes(std::string bytes, const std::string& name,
                                        const ReaderOptions& options = {});
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  const std::string& path() const;
  const TraceMetadata& metadata() const;
  const std::vector<ProbeSite>& sites() const;
  // The symbol tables of the files in the recorded stacks (1.3 object
  // blocks), in file order; empty for files without stacks. Complete once
  // open() returned: from the index, or collected by the scan of a file
  // without one. Damaged blocks are reported in diagnostics() and left out.
  const std::vector<ObjectTable>& objects() const;
  // The same tables, shared rather than copied (forks share them too).
  std::shared_ptr<const std::vector<ObjectTable>> shared_objects() const;

  // Set before the first next(); lets the reader skip chunks via the index.
  void set_filter(ReadFilter filter);

  // A second reader of the same file, at its first record, as a new open()
  // would give it but without reading anything again: it shares the bytes
  // (reads are pread) and copies what open() found (metadata, sites,
  // objects, chunks, summary, diagnostics). It decodes on the calling
  // thread; the filter is not copied. For parallel reports, one per thread.
  TraceReader fork() const;

  // The headers of the chunks found, in file order (their times and record
  // counts: where a parallel report cuts the file into segments).
  std::vector<ChunkHeader> chunk_headers() const;

  // Advances to the next record in time order (formats/FORMAT.md section 4:
  // by time_ns, for lost records time_begin_ns; at equal times process
  // events, then events, then lost records; then file order); false at the
  // end of what is readable. After it returns true, kind() says which accessor is valid;
  // the references stay valid until the next call. So do the StringArgs an
  // event's string arguments point to and their bytes, and the addresses of
  // its stack (they live in the decoded chunk): copy them to keep them longer.
  bool next();
  // Several records at once, when next() would return a run of events in a
  // row from one decoded batch: their number (0: call next()), *first the
  // first of them; the last is then the current record. They stay valid
  // until the next call of next() or next_events(), as the current record
  // does (a reader of a run reads it before asking for more).
  uint32_t next_events(const Event** first);
  RecordKind kind() const;
  const Event& event() const;
  const ProcessEvent& process() const;
  const LostEvent& lost() const;

  // The summary the recorder wrote at a clean end; nullopt when the file was
  // cut short (then reports count from the events they read). Available once
  // open() returned (from the footer) or at the latest when next() returned false.
  const std::optional<TraceSummary>& summary() const;

  const ReadDiagnostics& diagnostics() const;

  // For a file that is truncated or damaged, up to when its events are
  // complete, per CPU (formats/completeness.h). Reads the chunks once more,
  // in file order, on the calling thread (all of them: call it for a file
  // whose reading found damage); independent of the filter and of next().
  Completeness completeness() const;

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace usdt::format
