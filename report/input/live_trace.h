// One trace file read while the recorder writes it (usdt-report top,
// summary and latency --follow), as a TraceInput the event pass reads like
// any other. Each poll() takes what was flushed since the last one
// (format::TraceFollower); next() then returns the records before the time
// up to which the file is complete (its progress blocks, formats/FORMAT.md
// 3.9), merged in time order, and keeps the later ones for a later poll.
// So the records come in the order a read of the finished file gives, poll
// after poll, and once the recording ended every record has come.
//
// A file of a recorder without progress blocks (format before 1.8) has no
// such time: each poll's records come as they were flushed, in time order
// among themselves only (ordered() is false). A record the recorder placed
// after the time it said was complete (FORMAT.md 3.9) comes when it comes;
// such events are counted (late_events()).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "common/result.h"
#include "formats/trace_follower.h"
#include "report/input/trace_input.h"

namespace usdt::report {

class LiveTrace : public TraceInput {
 public:
  // Opens path, which holds at least the recorder's header and probe table,
  // and takes what is written so far (a first poll()).
  static Result<std::unique_ptr<LiveTrace>> open(const std::string& path);

  // Takes what was written since the last poll; returns true when anything
  // came (records, progress, added probe sites, the end). Fails only when
  // the file can no longer be read.
  Result<bool> poll();

  // Every record before this timeline time has come (or comes before the
  // next poll() from next()); UINT64_MAX once the recording ended; 0 before
  // the first progress block.
  uint64_t complete_before() const { return bound_; }
  // The recording's end was read (the summary): after the records now
  // pending, nothing more comes.
  bool ended() const { return follower_.ended() || follower_.stopped(); }
  // Whether the recorder states how far the file is complete (format 1.8).
  bool ordered() const { return follower_.minor_version() >= 7; }
  uint64_t late_events() const { return late_events_; }
  // Bumped when added probe sites (format 1.4) extended the catalog: a
  // reader compiled against the catalog (EventPass) must be made again.
  uint64_t sites_version() const { return sites_version_; }
  // Within how long the recorder promised its next progress block (0: it
  // said nothing): a recording quiet for much longer has stopped.
  uint64_t progress_every_ns() const {
    return follower_.progress() ? follower_.progress()->next_within_ns : 0;
  }
  const format::TraceFollower& follower() const { return follower_; }

 protected:
  bool next_record(Record& record) override;

 private:
  struct Source {
    format::FollowedChunks chunks;
    uint64_t seq = 0;       // file order of the poll that found it
    bool has_head = false;  // chunks' current record is the next to return
    uint64_t head_time = 0;
    uint8_t head_rank = 0;  // process, event, lost (FORMAT.md section 4)
  };
  explicit LiveTrace(format::TraceFollower follower) : follower_(std::move(follower)) {}
  // Makes the source's next record its head; false when it has none.
  static bool advance(Source& s);
  // The source whose head comes first; nullptr when none has one.
  Source* first_source();
  // Adds the follower's sites beyond those the catalog has.
  void take_added_sites();
  // Fills the file's summary and diagnostics once the end was read.
  void finish_file();

  format::TraceFollower follower_;
  std::deque<Source> sources_;
  Source* current_ = nullptr;  // returned the last record: advanced at the next call
  uint64_t next_seq_ = 0;
  uint64_t bound_ = 0;
  // Every record below this was returned (next() reached the bound): an
  // event below it that comes now came late.
  uint64_t delivered_below_ = 0;
  uint64_t late_events_ = 0;
  uint64_t sites_version_ = 0;
  size_t sites_known_ = 0;
};

}  // namespace usdt::report
