// The events and lost events of each probe site a TraceWriter has written:
// counted per chunk as records are appended, and added to the file's totals
// when the chunk reaches the file (a chunk refused at the size limit, or
// lost to a write error, counts nowhere). What a file's summary says it
// holds, and what a chunk kept for a snapshot says it holds
// (BlockOutput::write_chunk).
#pragma once

#include <cstdint>
#include <vector>

#include "formats/block_output.h"
#include "formats/trace_types.h"

namespace usdt::format {

class SiteTally {
 public:
  void add_sites(size_t count) {
    pending_events_.resize(pending_events_.size() + count, 0);
    pending_lost_.resize(pending_lost_.size() + count, 0);
    events_.resize(events_.size() + count, 0);
    lost_.resize(lost_.size() + count, 0);
  }
  size_t sites() const { return events_.size(); }

  void count_event(uint32_t site) {
    if (pending_events_[site]++ == 0 && pending_lost_[site] == 0) touched_.push_back(site);
  }
  void count_lost(uint32_t site, uint64_t n) {
    if (site >= pending_lost_.size()) {
      pending_unknown_lost_ += n;
      return;
    }
    if (pending_lost_[site] == 0 && pending_events_[site] == 0) touched_.push_back(site);
    pending_lost_[site] += n;
  }

  // The pending chunk's counts, sparse.
  SiteCounts pending() const {
    SiteCounts c;
    for (uint32_t site : touched_) {
      if (pending_events_[site] != 0) c.events.emplace_back(site, pending_events_[site]);
      if (pending_lost_[site] != 0) c.lost.emplace_back(site, pending_lost_[site]);
    }
    if (pending_unknown_lost_ != 0) c.lost.emplace_back(kNoSite, pending_unknown_lost_);
    return c;
  }
  // The pending chunk reached the file (written) or not (refused): its
  // counts start over either way.
  void settle(bool written) {
    if (written) add(pending());
    for (uint32_t site : touched_) pending_events_[site] = pending_lost_[site] = 0;
    touched_.clear();
    pending_unknown_lost_ = 0;
  }
  // A chunk written whole (another writer's counts). False when it names a
  // site beyond this file's.
  bool fits(const SiteCounts& c) const {
    for (const auto& [site, n] : c.events) {
      if (site >= events_.size()) return false;
    }
    for (const auto& [site, n] : c.lost) {
      if (site != kNoSite && site >= lost_.size()) return false;
    }
    return true;
  }
  void add(const SiteCounts& c) {
    for (const auto& [site, n] : c.events) events_[site] += n;
    for (const auto& [site, n] : c.lost) {
      if (site != kNoSite) lost_[site] += n;
      lost_total_ += n;
    }
  }

  const std::vector<uint64_t>& events() const { return events_; }
  const std::vector<uint64_t>& lost() const { return lost_; }
  uint64_t lost_total() const { return lost_total_; }

 private:
  std::vector<uint64_t> pending_events_, pending_lost_;
  uint64_t pending_unknown_lost_ = 0;
  std::vector<uint32_t> touched_;
  std::vector<uint64_t> events_, lost_;
  uint64_t lost_total_ = 0;
};

}  // namespace usdt::format
